/** The agents tools (spec document 2): list, read, create, edit, delete, copy, and the voices an agent can speak with. */
import { z } from 'zod';
import { previewResult } from './confirm.ts';
import { DEFAULT_LIST_LIMIT, listResult, valueResult } from './results.ts';
import { confirmArgument, defineTool, listArguments, orgArgument, pageArgument, type Tool } from './tool.ts';
import { getAgent, type AgentSummary } from './reads.ts';

const SERVICE = 'Agents';
const agentId = z.string().min(1).max(64).describe('The agent id');

/** The editable fields, under the names the MCP tools use, and the REST field each one is. */
const editable = {
  name: z.string().min(1).max(255).describe('Display name'),
  description: z.string().max(2000).describe('A note for people; the agent does not read it'),
  identity: z.string().min(1).describe('Who the agent is (the first part of its instructions)'),
  personality: z.string().describe('How it speaks'),
  task: z.string().min(1).describe('What it does on a call, step by step'),
  greeting: z
    .string()
    .max(2000)
    .describe('What a voice agent says first; {{variable}} placeholders are filled per call'),
  closing_message: z.string().max(2000).describe('What it says before hanging up'),
  language: z.string().max(35).describe('BCP-47, e.g. en-US'),
  language_accent: z.string().describe('Accent or dialect in plain words, e.g. "British English"; empty clears'),
  pronunciation: z.string().describe('How to say names and terms'),
  voice_id: z.string().max(255).describe('A voice id from agents_list_voices'),
  voice_speed: z.number().min(0.25).max(4).describe('Speaking rate, 1 is normal'),
  timezone: z.string().max(64).describe('IANA time zone, e.g. Europe/London'),
  calling_number: z.string().max(32).describe("Outbound caller number, E.164, one of the organisation's numbers"),
  custom_variables: z.record(z.string(), z.unknown()).describe('Default {{variables}} of every call'),
};
const REST_FIELD: Record<keyof typeof editable, string> = {
  name: 'name',
  description: 'description',
  identity: 'agentIdentity',
  personality: 'agentPersonality',
  task: 'agentTask',
  greeting: 'greetingMessage',
  closing_message: 'closingMessage',
  language: 'language',
  language_accent: 'languageAccent',
  pronunciation: 'pronunciation',
  voice_id: 'voiceId',
  voice_speed: 'voiceSpeed',
  timezone: 'timezone',
  calling_number: 'callingNumber',
  custom_variables: 'customVariables',
};

/** Every editable field, optional: what agents_update takes, and agents_create beside its required ones. */
const optionalEditable = Object.fromEntries(
  Object.entries(editable).map(([name, schema]) => [name, schema.optional()]),
) as {
  [K in keyof typeof editable]: z.ZodOptional<(typeof editable)[K]>;
};

function restFields(args: Partial<Record<keyof typeof editable, unknown>>): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [field, restName] of Object.entries(REST_FIELD)) {
    const value = args[field as keyof typeof editable];
    if (value !== undefined) body[restName] = value;
  }
  return body;
}

type Agent = AgentSummary;

const agentsList = defineTool({
  name: 'agents_list',
  title: 'List agents',
  description: 'Agents of an organisation, newest first: id, name, type, whether active, greeting and configuration.',
  toolClass: 'read',
  scopes: ['agents:read'],
  input: {
    ...orgArgument,
    agent_type: z.enum(['VOICE', 'CHAT']).optional().describe('Only voice or only chat agents'),
    active: z.boolean().optional().describe('true: active agents only; false: paused ones only'),
    search: z.string().min(1).max(200).optional().describe('Text in the name or description'),
    ...pageArgument,
    ...listArguments,
  },
  async run(args, context) {
    const limit = args.limit ?? DEFAULT_LIST_LIMIT;
    const data = await context.call<{ items: unknown[]; total: number; page: number }>(SERVICE, {
      method: 'GET',
      path: '/voice/agents',
      query: {
        organisationId: context.organisation(args.org_id),
        agentType: args.agent_type,
        isActive: args.active,
        search: args.search,
        page: args.page,
        limit,
      },
    });
    return listResult({ items: data.items, total: data.total, page: data.page, limit }, args.fields);
  },
});

const agentsGet = defineTool({
  name: 'agents_get',
  title: 'Get an agent',
  description:
    "One agent's full configuration: instructions, greeting, voice, language, tools (webhook tokens redacted), flow, results tracking.",
  toolClass: 'read',
  scopes: ['agents:read'],
  input: { agent_id: agentId },
  async run(args, context) {
    return valueResult(await getAgent(context, args.agent_id));
  },
});

const agentsCreate = defineTool({
  name: 'agents_create',
  title: 'Create an agent',
  description:
    "Creates a voice agent (or a chat agent with agent_type CHAT) on the installation's default speech model. " +
    "`identity` and `task` are required, and `greeting` for voice agents. The agent gets the organisation's newest number " +
    'for outbound calls unless calling_number says otherwise.',
  toolClass: 'write',
  scopes: ['agents:write'],
  input: {
    ...orgArgument,
    ...optionalEditable,
    name: editable.name,
    identity: editable.identity,
    task: editable.task,
    agent_type: z.enum(['VOICE', 'CHAT']).optional().describe('Default VOICE'),
  },
  async run(args, context) {
    const body = { ...restFields(args), agentType: args.agent_type, organisationId: context.organisation(args.org_id) };
    const agent = await context.call<Agent>(SERVICE, { method: 'POST', path: '/voice/agents', body });
    return valueResult({ created: true, agent });
  },
});

function diff(
  before: Agent,
  after: Agent,
  fields: readonly string[],
): Record<string, { before: unknown; after: unknown }> {
  const changes: Record<string, { before: unknown; after: unknown }> = {};
  for (const field of fields) {
    if (JSON.stringify(before[field]) !== JSON.stringify(after[field]))
      changes[field] = { before: before[field] ?? null, after: after[field] ?? null };
  }
  return changes;
}

const agentsUpdate = defineTool({
  name: 'agents_update',
  title: 'Edit an agent',
  description:
    'Changes only the fields given and answers a before/after diff of what changed. `active: false` pauses the agent.',
  toolClass: 'write',
  scopes: ['agents:write'],
  input: {
    agent_id: agentId,
    ...optionalEditable,
    active: z.boolean().optional().describe('false pauses the agent (no calls) until set true again'),
  },
  async run(args, context) {
    const body = restFields(args);
    if (args.active !== undefined) body.isActive = args.active;
    if (Object.keys(body).length === 0) {
      return valueResult({ changed: {}, note: 'No field to change was given; the agent is as it was.' });
    }
    const before = await getAgent(context, args.agent_id);
    const after = await context.call<Agent>(SERVICE, {
      method: 'PUT',
      path: `/voice/agents/${encodeURIComponent(args.agent_id)}`,
      body,
    });
    return valueResult({ agentId: after.id, changed: diff(before, after, Object.keys(body)) });
  },
});

const agentsDelete = defineTool({
  name: 'agents_delete',
  title: 'Delete an agent',
  description:
    'Deletes an agent: it takes and places no more calls, its numbers are unassigned and its widget tokens revoked. Its calls and results are kept.',
  toolClass: 'destructive',
  confirm: true,
  scopes: ['agents:write'],
  input: { agent_id: agentId, ...confirmArgument },
  async run(args, context) {
    const agent = await getAgent(context, args.agent_id);
    if (!args.confirm) {
      return previewResult('agents_delete', {
        action: `Delete the agent "${agent.name}"`,
        target: {
          id: agent.id,
          name: agent.name,
          agentType: agent.agentType,
          isActive: agent.isActive,
          callingNumber: agent.callingNumber ?? null,
          totalCalls: agent.totalCalls ?? null,
        },
        effects: [
          'The agent disappears from every list and read; it answers and places no more calls.',
          'Numbers routed to it are unassigned; its widget tokens are revoked.',
          'Its call records and results stay.',
        ],
      });
    }
    return valueResult(
      await context.call(SERVICE, { method: 'DELETE', path: `/voice/agents/${encodeURIComponent(args.agent_id)}` }),
    );
  },
});

const agentsDuplicate = defineTool({
  name: 'agents_duplicate',
  title: 'Copy an agent',
  description:
    'A new agent with every setting of the source (texts, voice, tools, flow, results tracking, number); no calls, version 1.',
  toolClass: 'write',
  scopes: ['agents:write'],
  input: {
    agent_id: agentId,
    name: z.string().min(1).max(255).optional().describe("Default: the source's name plus ' (copy)'"),
  },
  async run(args, context) {
    const copy = await context.call<Agent>(SERVICE, {
      method: 'POST',
      path: `/voice/agents/${encodeURIComponent(args.agent_id)}/duplicate`,
      body: args.name === undefined ? {} : { name: args.name },
    });
    return valueResult({ created: true, agent: copy });
  },
});

const agentsListVoices = defineTool({
  name: 'agents_list_voices',
  title: 'List voices',
  description: 'Text-to-speech voices an agent can use (set voice_id from here), by provider, language and gender.',
  toolClass: 'read',
  scopes: ['agents:read'],
  input: {
    language: z.string().min(2).max(35).optional().describe('A language tag, e.g. en or en-GB'),
    provider: z.string().min(1).max(64).optional().describe("Only this provider's voices"),
    ...pageArgument,
    ...listArguments,
  },
  async run(args, context) {
    const data = await context.call<{ voices: unknown[] }>(SERVICE, {
      method: 'GET',
      path: '/voice/voices',
      query: { language: args.language, provider: args.provider },
    });
    const limit = args.limit ?? DEFAULT_LIST_LIMIT;
    const page = args.page ?? 1;
    return listResult(
      { items: data.voices.slice((page - 1) * limit, page * limit), total: data.voices.length, page, limit },
      args.fields,
    );
  },
});

export const agentTools: readonly Tool[] = [
  agentsList,
  agentsGet,
  agentsCreate,
  agentsUpdate,
  agentsDelete,
  agentsDuplicate,
  agentsListVoices,
];
