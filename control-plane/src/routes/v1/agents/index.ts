/**
 * /voice/agents: voice and chat agents (spec document 2, Agents (REST)), plus what the spec leaves out and users
 * need: the list, delete, duplicate, the instruction budget and the organisation's FLOW agents.
 *
 * These routes answer errors with `error` beside `message` (spec document 3: the agent routes use `error`), and a
 * rejected flow with `flowErrors`, so this plugin adds both to the app's error answers.
 */
import type { FastifyInstance } from 'fastify';
import { ok } from '../../../http/envelope.ts';
import { validatorCompiler } from '../../../http/validation.ts';
import { principalOf } from '../../../plugins/app/auth.ts';
import type { KeyRing } from '../../../secrets/key-ring.ts';
import type { AgentListeners } from '../../../agents/events.ts';

export type { AgentDeletedEvent, AgentListeners, AgentSavedEvent } from '../../../agents/events.ts';
import { FlowRejectedError } from '../../../agents/flow-rules.ts';
import * as schemas from './schemas.ts';
import { AgentService } from '../../../agents/service.ts';
import type { AgentRecord } from '../../../agents/records.ts';
import { greetingRoutes } from './greetings.ts';

export interface AgentRoutesOptions extends AgentListeners {
  /** The key ring of secrets at rest (webhook bearer tokens). */
  keyRing: KeyRing | undefined;
  /**
   * Whether a language model is there for calls, asked at each save (the live llm workers' heartbeats, as engines
   * decide it); false: saving a PROMPT agent answers with a warning. Default true.
   */
  languageModel?: boolean | (() => Promise<boolean>);
}

/** What a PROMPT agent's save says when no language model is running (docs/architecture.md §2). */
export const NO_LANGUAGE_MODEL_WARNING =
  'No language model is running (no llm-worker with PARLEY_LLM_BASE_URL and PARLEY_LLM_MODEL is alive): this ' +
  'PROMPT agent will play its greeting, then tell callers that no language model is configured.';

type IdParams = { id: string };

export default async function agentRoutes(app: FastifyInstance, options: AgentRoutesOptions) {
  const agents = new AgentService(app.sql, { ...options, keys: app.keys, log: app.log });
  const languageModel = async () =>
    typeof options.languageModel === 'function' ? await options.languageModel() : (options.languageModel ?? true);
  const saved = async (agent: AgentRecord, message: string) => {
    const body = ok(agent, message);
    return agent.builderMode === 'PROMPT' && !(await languageModel())
      ? { ...body, warnings: [NO_LANGUAGE_MODEL_WARNING] }
      : body;
  };
  for (const schema of [schemas.AgentSchema, schemas.AgentErrorBody, schemas.FlowDefinitionSchema])
    app.addSchema(schema);
  // Adding schemas gives this context a schema store of its own, and Fastify builds its validator with the default
  // compiler (which drops unknown fields and stops at the first error): put the app's compiler back.
  app.setValidatorCompiler(validatorCompiler);
  installAgentErrors(app);

  app.post<{ Body: schemas.CreateAgentBody }>(
    '/voice/agents',
    { schema: schemas.createAgent, config: { scope: 'agents:write' } },
    async (request, reply) =>
      reply.code(201).send(await saved(await agents.create(principalOf(request), request.body), 'Agent created')),
  );

  app.get<{ Querystring: schemas.ListAgentsQuery }>(
    '/voice/agents',
    { schema: schemas.listAgents, config: { scope: 'agents:read' } },
    async (request) => ok(await agents.list(principalOf(request), request.query)),
  );

  app.get<{ Params: IdParams; Querystring: schemas.GetAgentQuery }>(
    '/voice/agents/:id',
    { schema: schemas.getAgent, config: { scope: 'agents:read' } },
    async (request) => ok(await agents.get(principalOf(request), request.params.id, request.query)),
  );

  app.put<{ Params: IdParams; Body: schemas.UpdateAgentBody }>(
    '/voice/agents/:id',
    { schema: schemas.updateAgent, config: { scope: 'agents:write' } },
    async (request) =>
      await saved(await agents.update(principalOf(request), request.params.id, request.body), 'Agent updated'),
  );

  app.delete<{ Params: IdParams }>(
    '/voice/agents/:id',
    { schema: schemas.deleteAgent, config: { scope: 'agents:write' } },
    async (request) => ok(await agents.delete(principalOf(request), request.params.id), 'Agent deleted'),
  );

  app.post<{ Params: IdParams; Body: schemas.DuplicateBody | undefined }>(
    '/voice/agents/:id/duplicate',
    {
      schema: schemas.duplicateAgent,
      config: { scope: 'agents:write' },
      // The body is optional: a POST with none means `{}`, not "body must be an object".
      preValidation: async (request) => {
        request.body ??= {};
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(
          await saved(
            await agents.duplicate(principalOf(request), request.params.id, request.body ?? {}),
            'Agent duplicated',
          ),
        ),
  );

  app.get<{ Querystring: schemas.BudgetQuery }>(
    '/voice/agent-instruction-budget',
    { schema: schemas.instructionBudget, config: { scope: 'agents:read' } },
    async (request) => ok(await agents.instructionBudget(principalOf(request), request.query)),
  );

  app.get<{ Params: { organisationId: string } }>(
    '/voice/organisations/:organisationId/flow-agents',
    { schema: schemas.flowAgents, config: { scope: 'agents:read' } },
    async (request) => ok(await agents.flowAgents(principalOf(request))),
  );

  greetingRoutes(app, agents);
}

function installAgentErrors(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => {
    // Everything but a rejected flow goes to the app's error handler, which answers it as every route does.
    if (!(error instanceof FlowRejectedError)) throw error;
    request.log.info({ code: error.code, status: error.status, problems: error.flowErrors.length }, 'flow rejected');
    return reply.code(error.status).send({
      success: false,
      message: error.message,
      error: error.message,
      code: error.code,
      errors: error.fields,
      flowErrors: error.flowErrors,
    });
  });
  app.addHook('onSend', async (_request, reply, payload) => {
    if (reply.statusCode < 400 || typeof payload !== 'string') return payload;
    try {
      const body = JSON.parse(payload) as { success?: boolean; message?: unknown; error?: unknown };
      if (body.success !== false || typeof body.message !== 'string' || body.error !== undefined) return payload;
      return JSON.stringify({ ...body, error: body.message });
    } catch {
      return payload;
    }
  });
}
