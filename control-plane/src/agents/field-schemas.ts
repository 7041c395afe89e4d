/**
 * Schemas of the Agent's fields (spec document 1, Agent): the enums, webhook function tools, resultsConfig, and the
 * writable fields shared by create and update. Request fields that may be cleared are unions with null (so a bad
 * value is reported as "must be one of: …"); the record the API returns uses type lists (see http/schemas.ts).
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { FIELD_TYPES, MAX_FLOW_STEPS } from '@parley/engine/protocol';
import { ID_PATTERN } from '../db/ids.ts';
import { Id, StringEnum } from '../http/schemas.ts';

export const AGENT_TYPES = ['VOICE', 'CHAT'] as const;
export type AgentType = (typeof AGENT_TYPES)[number];
export const BUILDER_MODES = ['PROMPT', 'FLOW'] as const;
export type BuilderMode = (typeof BUILDER_MODES)[number];
export const GENDERS = ['MALE', 'FEMALE', 'NEUTRAL'] as const;
export const STT_MODES = ['GLOBAL', 'INDIA', 'HUMANOID', 'GENERIC'] as const;
export const LANGUAGE_GROUPS = ['English', 'Indian', 'Global'] as const;
export const LANGUAGE_SELECTION_MODES = ['group', 'language'] as const;
/** The carriers of spec document 1 (values of telephonyProvider and of a phone number's provider). */
export const CARRIERS = ['carrier-a', 'carrier-b', 'carrier-c', 'carrier-d', 'carrier-e'] as const;
export type Carrier = (typeof CARRIERS)[number];
export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** Spec document 3: at most 5 function tools per agent. */
export const MAX_FUNCTION_TOOLS = 5;
/** Shortest webhook timeout: below half a second a healthy webhook across the internet fails for nothing. */
export const MIN_TOOL_TIMEOUT_MS = 500;
/** Longest webhook timeout: a caller waiting in silence longer than 30 s hangs up. */
export const MAX_TOOL_TIMEOUT_MS = 30_000;
/** Spoken messages (greeting, closing, …): 2,000 characters is minutes of speech, well past any sensible line. */
const MAX_MESSAGE_CHARS = 2_000;
/** Outcomes and fields of resultsConfig: a results table wider than 50 columns is no longer read by anyone. */
export const MAX_RESULT_ITEMS = 50;
const BCP47_PATTERN = '^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$';

/** A request field that may be sent as null to clear it. */
export const OrNull = <T extends TSchema>(schema: T, description?: string) =>
  Type.Union([schema, Type.Null()], description ? { description } : {});

/**
 * An object field that may be sent as null. A type list rather than a union: a wrong value inside the object is
 * then reported once, at its own path, not also as "handoverData does not match any accepted form".
 */
export const ObjectOrNull = <T extends TSchema>(schema: T, description?: string) =>
  Type.Unsafe<Static<T> | null>({ ...schema, type: ['object', 'null'], ...(description ? { description } : {}) });

export const WebhookToolInput = Type.Object(
  {
    name: Type.Optional(
      Type.String({ minLength: 1, maxLength: 100, description: 'Display name; the key is what the model calls.' }),
    ),
    description: Type.String({
      minLength: 1,
      maxLength: 1024,
      description: 'What the tool does and when to use it; the model reads this.',
    }),
    parameters: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description:
          'JSON Schema of the arguments, an object schema: `{"type":"object","properties":{…},"required":[…]}`.',
      }),
    ),
    url: Type.String({
      format: 'uri',
      pattern: '^https?://',
      maxLength: 2048,
      description: 'The webhook, http or https.',
    }),
    method: Type.Optional(
      StringEnum(HTTP_METHODS, {
        description: 'Default POST. GET and DELETE send the arguments as query parameters, the others as a JSON body.',
      }),
    ),
    headers: Type.Optional(
      Type.Record(Type.String(), Type.String({ maxLength: 4096 }), {
        maxProperties: 20,
        description:
          'Extra request headers, stored as sent (not encrypted): put credentials in bearerToken, not in an Authorization header.',
      }),
    ),
    bearerToken: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 4096,
        description:
          'Sent as `Authorization: Bearer …`. Stored encrypted (AES-256-GCM) and returned encrypted (`enc:v1:…`); ' +
          'sending back the encrypted value keeps the token unchanged.',
      }),
    ),
    timeoutMs: Type.Optional(
      Type.Integer({
        minimum: MIN_TOOL_TIMEOUT_MS,
        maximum: MAX_TOOL_TIMEOUT_MS,
        description: 'Per call, ms. Default 8000.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type WebhookToolInput = Static<typeof WebhookToolInput>;

export const FunctionToolsInput = Type.Record(Type.String(), WebhookToolInput, {
  maxProperties: MAX_FUNCTION_TOOLS,
  description:
    `Webhook tools keyed by tool key (the name the model calls: a letter, then letters, digits, _ or -; at most 64), at most ${MAX_FUNCTION_TOOLS}. ` +
    'A sent value replaces all tools. Keys of built-in tools (knowledge_search, product_search, end_call, transfer_call) are reserved.',
});
export type FunctionToolsInput = Static<typeof FunctionToolsInput>;

const ResultOutcome = Type.Object(
  {
    key: Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'A letter, then letters, digits, _ or -. `no_result` is reserved.',
    }),
    label: Type.String({ minLength: 1, maxLength: 100 }),
    description: Type.Optional(Type.String({ maxLength: 500 })),
  },
  { additionalProperties: false },
);

const ResultField = Type.Object(
  {
    key: Type.String({ minLength: 1, maxLength: 64, description: 'A letter, then letters, digits, _ or -.' }),
    label: Type.String({ minLength: 1, maxLength: 100 }),
    type: StringEnum(FIELD_TYPES, { description: 'number, phone, choice, yes_no, text or date' }),
    choices: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
        maxItems: MAX_RESULT_ITEMS,
        description: 'Required for type choice, and only for it.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const ResultsConfigInput = Type.Object(
  {
    outcomes: Type.Optional(Type.Array(ResultOutcome, { maxItems: MAX_RESULT_ITEMS })),
    fields: Type.Optional(Type.Array(ResultField, { maxItems: MAX_RESULT_ITEMS })),
  },
  {
    additionalProperties: false,
    description:
      'What the post-call analysis records: one outcome per call and the fields it fills. Null, or no outcomes and no fields, ' +
      'tracks nothing. Ignored for FLOW agents, whose resultsConfig is derived from the flow on every save.',
  },
);
export type ResultsConfigInput = Static<typeof ResultsConfigInput>;

/** The fields create and update share; update makes all of them optional and adds isActive. */
export const writableFields = {
  organisationId: Id('Own organisation (optional)'),
  name: Type.String({ minLength: 1, maxLength: 255 }),
  description: Type.String({ maxLength: 2000 }),
  agentType: StringEnum(AGENT_TYPES, { description: 'Default VOICE.' }),
  callbackAgentId: OrNull(
    Type.String({ pattern: ID_PATTERN }),
    'A VOICE agent of the same organisation that places callbacks for this chat agent.',
  ),
  agentIdentity: Type.String({ minLength: 1, description: 'Who the agent is. Counts toward the instruction budget.' }),
  agentPersonality: OrNull(Type.String(), 'Counts toward the instruction budget.'),
  agentTask: OrNull(
    Type.String(),
    'What the agent does. Required unless builderMode is FLOW; an empty value sent to a FLOW agent keeps the stored task. Counts toward the budget.',
  ),
  pronunciation: OrNull(Type.String(), 'Counts toward the instruction budget.'),
  languageAccent: OrNull(
    Type.String(),
    'Plain words; empty string or null clears. Counts toward the instruction budget.',
  ),
  greetingMessage: OrNull(
    Type.String({ maxLength: MAX_MESSAGE_CHARS }),
    'Required for VOICE agents; `{{variable}}` placeholders are filled from customVariables.',
  ),
  closingMessage: OrNull(Type.String({ maxLength: MAX_MESSAGE_CHARS })),
  escalationMessage: OrNull(Type.String({ maxLength: MAX_MESSAGE_CHARS })),
  voicemailMessage: OrNull(Type.String({ maxLength: MAX_MESSAGE_CHARS })),
  language: Type.String({ pattern: BCP47_PATTERN, maxLength: 35, description: 'BCP-47, e.g. en-US. Default en-US.' }),
  gender: OrNull(StringEnum(GENDERS)),
  voiceProvider: OrNull(Type.String({ maxLength: 64 }), 'Leave unset: the installation default.'),
  voiceId: OrNull(Type.String({ maxLength: 255 })),
  voiceSpeed: Type.Number({ minimum: 0.25, maximum: 4, description: 'Speaking rate, 1 is normal. Default 1.' }),
  sttMode: OrNull(StringEnum(STT_MODES)),
  supportedLanguageGroup: OrNull(StringEnum(LANGUAGE_GROUPS)),
  languageSelectionMode: OrNull(StringEnum(LANGUAGE_SELECTION_MODES)),
  supportedLanguage: OrNull(
    Type.String({ pattern: BCP47_PATTERN, maxLength: 35 }),
    'Used when languageSelectionMode is language.',
  ),
  timezone: OrNull(Type.String({ maxLength: 64 }), 'IANA time zone, e.g. Europe/London.'),
  backgroundNoise: OrNull(Type.String({ maxLength: 2048 }), 'An identifier or URL.'),
  backgroundNoiseVolume: OrNull(Type.Number({ minimum: 0, maximum: 1 }), 'From 0 (silent) to 1 (full volume).'),
  customVariables: ObjectOrNull(
    Type.Record(Type.String(), Type.Unknown()),
    'Default variables of every call. `knowledge_base_ids` and ' +
      '`catalogue_ids` (an id, or a list of ids) give the agent the knowledge_search and product_search tools. Null clears.',
  ),
  functionTools: ObjectOrNull(FunctionToolsInput),
  contextMemory: ObjectOrNull(
    Type.Object({ custom_instructions: Type.Optional(Type.String()) }, { additionalProperties: true }),
    'Known key custom_instructions.',
  ),
  handoverData: ObjectOrNull(
    Type.Object(
      {
        handover_enabled: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
        handover_number: Type.Optional(
          Type.Union([Type.String({ maxLength: 255 }), Type.Null()], {
            description: 'Where a handover transfers the call.',
          }),
        ),
      },
      { additionalProperties: true },
    ),
    'Known keys handover_enabled and handover_number. On update it is shallow-merged into the stored value, and a key sent as null is removed.',
  ),
  webCallEnabled: Type.Boolean({ description: 'CHAT agents only: visitors may start a browser voice call.' }),
  builderMode: StringEnum(BUILDER_MODES, {
    description: 'PROMPT (default) or FLOW (a step-by-step call flow; VOICE only; needs Flow Agents).',
  }),
  flowDefinition: Type.Unsafe<Record<string, unknown> | null>({
    type: ['object', 'null'],
    description:
      `The call flow of a FLOW agent, structured as components.schemas.FlowDefinition (at most ${MAX_FLOW_STEPS} steps). ` +
      'It is checked as a whole against the agent (its tools, knowledge bases, handover number) and every problem comes back at once ' +
      'in `flowErrors`. Null deletes the saved flow of a PROMPT agent.',
  }),
  resultsConfig: ObjectOrNull(ResultsConfigInput),
  callingNumber: OrNull(
    Type.String({ maxLength: 32 }),
    'Outbound caller number, E.164; a local format is ' +
      "resolved to the matching number the organisation owns. On create, unless telephonyProvider is sent too, the organisation's newest " +
      'active carrier-a number (else its newest active number) is used.',
  ),
  telephonyProvider: OrNull(StringEnum(CARRIERS)),
};
