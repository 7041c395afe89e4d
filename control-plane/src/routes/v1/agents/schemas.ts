/**
 * Route schemas of /voice/agents and its companions (spec document 2, Agents; list, delete, duplicate, the
 * instruction budget and the flow-agents read are Parley's design where the spec says "not shown").
 */
import { Type, type TSchema } from '@sinclair/typebox';
import { FlowDefinition } from '@parley/engine/protocol';
import { Envelope, Id, NullableString, NullableTimestamp, Timestamp } from '../../../http/schemas.ts';
import {
  DEFAULT_PAGE_SIZE,
  MAX_PAGE_SIZE,
  CreateAgentBody,
  UpdateAgentBody,
  GetAgentQuery,
  ListAgentsQuery,
  DuplicateBody,
  BudgetQuery,
} from '../../../agents/types.ts';
export {
  DEFAULT_PAGE_SIZE,
  MAX_PAGE_SIZE,
  CreateAgentBody,
  UpdateAgentBody,
  GetAgentQuery,
  ListAgentsQuery,
  DuplicateBody,
  BudgetQuery,
} from '../../../agents/types.ts';

const TAGS = ['agents'];
const NullableNumber = Type.Unsafe<number | null>({ type: ['number', 'null'] });
const JsonObject = Type.Record(Type.String(), Type.Unknown());
const NullableObject = (description: string) =>
  Type.Unsafe<Record<string, unknown> | null>({ type: ['object', 'null'], additionalProperties: true, description });

const StoredToolSchema = Type.Object({
  name: Type.Optional(Type.String()),
  description: Type.String(),
  parameters: Type.Optional(JsonObject),
  url: Type.String(),
  method: Type.Optional(Type.String()),
  headers: Type.Optional(Type.Record(Type.String(), Type.String())),
  bearerToken: Type.Optional(
    Type.String({ description: 'enc:v1:<key id>:… (AES-256-GCM); in clear only with includeTools=decrypted.' }),
  ),
  timeoutMs: Type.Optional(Type.Integer()),
});

const ResultsConfigSchema = Type.Unsafe({
  type: ['object', 'null'],
  description: 'outcomes and fields tracked per call; null tracks nothing. Derived from the flow for FLOW agents.',
  properties: {
    outcomes: {
      type: 'array',
      items: {
        type: 'object',
        properties: { key: { type: 'string' }, label: { type: 'string' }, description: { type: 'string' } },
      },
    },
    fields: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          key: { type: 'string' },
          label: { type: 'string' },
          type: { type: 'string' },
          choices: { type: 'array', items: { type: 'string' } },
        },
      },
    },
  },
});

export const AgentSchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    description: Type.String(),
    organisationId: Type.String(),
    createdById: NullableString,
    createdBy: Type.Unsafe({
      type: ['object', 'null'],
      properties: { id: { type: 'string' }, name: { type: 'string' }, email: { type: 'string' } },
    }),
    agentType: Type.String({ description: 'VOICE or CHAT' }),
    callbackAgentId: NullableString,
    agentIdentity: Type.String(),
    agentPersonality: NullableString,
    agentTask: NullableString,
    pronunciation: NullableString,
    languageAccent: NullableString,
    greetingMessage: NullableString,
    closingMessage: NullableString,
    escalationMessage: NullableString,
    voicemailMessage: NullableString,
    language: Type.String(),
    gender: NullableString,
    voiceProvider: NullableString,
    voiceId: NullableString,
    voiceSpeed: Type.Number(),
    sttMode: NullableString,
    supportedLanguageGroup: NullableString,
    languageSelectionMode: NullableString,
    supportedLanguage: NullableString,
    timezone: NullableString,
    backgroundNoise: NullableString,
    backgroundNoiseVolume: NullableNumber,
    customVariables: JsonObject,
    functionTools: Type.Record(Type.String(), StoredToolSchema, {
      description: 'Webhook tools by key; bearer tokens encrypted.',
    }),
    contextMemory: JsonObject,
    handoverData: JsonObject,
    webCallEnabled: Type.Boolean(),
    isActive: Type.Boolean(),
    version: Type.Integer({ description: 'Starts at 1; every change adds 1.' }),
    lastUsed: NullableTimestamp,
    createdAt: Timestamp,
    updatedAt: Timestamp,
    totalCalls: Type.Integer(),
    builderMode: Type.String({ description: 'PROMPT or FLOW' }),
    flowDefinition: NullableObject('The call flow (components.schemas.FlowDefinition), or null.'),
    resultsConfig: ResultsConfigSchema,
    callingNumber: NullableString,
    telephonyProvider: NullableString,
    sipConfigurations: Type.Array(Type.Unknown()),
  },
  { $id: 'Agent', description: 'An agent (spec document 1).' },
);

/** The flow's structure in the OpenAPI document; requests are checked by the engine's validator (flowErrors). */
export const FlowDefinitionSchema: TSchema = { ...FlowDefinition, $id: 'FlowDefinition' };

/**
 * Errors of these routes: the house body plus `error` (spec document 3: the agent routes use `error`; it repeats
 * `message`), and `flowErrors` when a flow is rejected.
 */
export const AgentErrorBody = Type.Object(
  {
    success: Type.Literal(false),
    message: Type.String(),
    error: Type.Optional(Type.String({ description: 'The same text as message.' })),
    code: Type.String(),
    errors: Type.Optional(Type.Array(Type.Object({ field: Type.String(), message: Type.String() }))),
    flowErrors: Type.Optional(
      Type.Array(
        Type.Object({
          path: Type.String({ description: 'JSON pointer into flowDefinition, e.g. /steps/confirm/next' }),
          message: Type.String(),
        }),
        { description: 'Every problem of a rejected flow' },
      ),
    ),
  },
  { $id: 'AgentErrorBody' },
);

const errorRef = Type.Ref('AgentErrorBody');
export const agentErrors = (...codes: number[]) =>
  Object.fromEntries([400, 401, 403, ...codes].map((code) => [code, errorRef]));
const OneAgent = Envelope(Type.Ref('Agent'));
/** A saved agent, with what the caller should know about it (docs/architecture.md §2: a PROMPT agent without a language model). */
const SavedAgent = Type.Object({
  success: Type.Literal(true),
  data: Type.Ref('Agent'),
  message: Type.Optional(Type.String()),
  warnings: Type.Optional(
    Type.Array(Type.String(), {
      description:
        'Present when the agent is saved but cannot work fully as configured, e.g. a PROMPT agent while no language ' +
        'model is running (no llm-worker alive): its calls play the greeting, then say that no language model is ' +
        'configured.',
    }),
  ),
});
export const AgentParams = Type.Object({ id: Id('Agent id') });

export const createAgent = {
  tags: TAGS,
  summary: 'Create a voice or chat agent',
  description:
    'Rules: the instruction budget; the default outbound number (newest active carrier-a number, else newest active number, ' +
    'unless callingNumber and telephonyProvider are both sent); FLOW needs Flow Agents (403), a VOICE agent and a flow that fits ' +
    "the agent (400 with flowErrors); a FLOW agent's resultsConfig is derived from its flow.",
  body: CreateAgentBody,
  response: { 201: SavedAgent, ...agentErrors() },
};

export const getAgent = {
  tags: TAGS,
  summary: 'One agent; deleted agents are 404',
  params: AgentParams,
  querystring: GetAgentQuery,
  response: { 200: OneAgent, ...agentErrors(404) },
};

export const updateAgent = {
  tags: TAGS,
  summary: 'Partial update of an agent',
  description:
    'Only sent fields change, and every change increments version. handoverData is shallow-merged (null removes a key); ' +
    'switching to FLOW keeps the PROMPT resultsConfig aside and switching back restores it; an empty agentTask sent to a FLOW ' +
    'agent keeps the stored task; on a FLOW agent a change of flowDefinition, builderMode, functionTools, customVariables or ' +
    'handoverData re-checks the flow. An agent over the instruction budget may be saved when the edit does not make it longer.',
  params: AgentParams,
  body: UpdateAgentBody,
  response: { 200: SavedAgent, ...agentErrors(404) },
};

export const listAgents = {
  tags: TAGS,
  summary: 'Agents of the organisation, newest first, a page at a time',
  description: `Deleted agents are never listed. Pages hold ${DEFAULT_PAGE_SIZE} agents unless limit says otherwise (at most ${MAX_PAGE_SIZE}).`,
  querystring: ListAgentsQuery,
  response: {
    200: Envelope(
      Type.Object({
        items: Type.Array(Type.Ref('Agent')),
        total: Type.Integer({ description: 'Agents matching the filters, over all pages' }),
        page: Type.Integer(),
        limit: Type.Integer(),
        totalPages: Type.Integer(),
      }),
    ),
    ...agentErrors(),
  },
};

export const deleteAgent = {
  tags: TAGS,
  summary: 'Delete an agent',
  description:
    'It is gone from every read (404) and never counted again. Its widget tokens are revoked, chat agents calling back ' +
    'through it lose their callback agent, and numbers answering with it are unassigned. Its calls and results are kept.',
  params: AgentParams,
  response: { 200: Envelope(Type.Object({ deleted: Type.Literal(true), id: Type.String() })), ...agentErrors(404) },
};

export const duplicateAgent = {
  tags: TAGS,
  summary: 'Copy an agent',
  description:
    'A new agent (version 1, no calls) with every setting of the source: texts, voice, tools and their tokens, flow, ' +
    'resultsConfig, variables, callback agent and outbound number. Widget tokens are not copied. The creator is the key owner. ' +
    'The copy obeys the rules of a new agent: the instruction budget, and Flow Agents for a FLOW agent.',
  params: AgentParams,
  body: Type.Optional(DuplicateBody),
  response: { 201: SavedAgent, ...agentErrors(404) },
};

export const instructionBudget = {
  tags: TAGS,
  summary: "The organisation's instruction budget, and an agent's use of it",
  querystring: BudgetQuery,
  response: {
    200: Envelope(
      Type.Object({
        budget: Type.Integer({ description: 'Characters allowed across the counted fields' }),
        defaultBudget: Type.Integer(),
        countedFields: Type.Array(Type.String()),
        usage: Type.Unsafe({
          type: ['object', 'null'],
          description: "With agentId: that agent's use; otherwise null",
          properties: {
            agentId: { type: 'string' },
            used: { type: 'integer' },
            remaining: { type: 'integer', description: 'Negative when over budget' },
          },
        }),
      }),
    ),
    ...agentErrors(404),
  },
};

export const flowAgents = {
  tags: TAGS,
  summary: 'Whether Flow Agents is enabled for the organisation, and its FLOW agents',
  params: Type.Object({ organisationId: Id('Own organisation') }),
  response: {
    200: Envelope(
      Type.Object({
        enabled: Type.Boolean({
          description:
            'Flow Agents feature of the organisation: without it, FLOW agents cannot be created or their flows changed',
        }),
        agents: Type.Array(
          Type.Object({ id: Type.String(), name: Type.String(), isActive: Type.Boolean(), updatedAt: Timestamp }),
        ),
      }),
    ),
    ...agentErrors(),
  },
};
