/** The inputs of the agent service, as TypeBox schemas built from the agent's fields: the routes validate with them. */
import { Type, type Static } from '@sinclair/typebox';
import { Id, StringEnum } from '../http/schemas.ts';
import { AGENT_TYPES, writableFields } from './field-schemas.ts';

/** List pages: 20 agents unless asked, at most 100 (spec: list limits). */
export const DEFAULT_PAGE_SIZE = 20;

export const MAX_PAGE_SIZE = 100;

const { name, agentIdentity, ...optionalFields } = writableFields;
const Optional = Type.Partial(Type.Object(optionalFields));

/**
 * The create rules that hang on another field (spec document 2, Agents), in the schema so that generated clients
 * and readers of the OpenAPI document know them and validation refuses them with the same words as agent-rules.ts.
 * An absent builderMode or agentType is the default (PROMPT, VOICE), which a bare `properties` condition matches.
 */
const CREATE_RULES = [
  {
    if: { properties: { builderMode: { const: 'PROMPT' } } },
    then: {
      required: ['agentTask'],
      properties: {
        agentTask: { type: 'string', minLength: 1, 'x-error-message': 'is required unless builderMode is FLOW' },
      },
    },
  },
  {
    if: { properties: { agentType: { const: 'VOICE' } } },
    then: {
      required: ['greetingMessage'],
      properties: {
        greetingMessage: { type: 'string', pattern: '\\S', 'x-error-message': 'is required for VOICE agents' },
      },
    },
  },
];

export const CreateAgentBody = Type.Object(
  { name, agentIdentity, ...Optional.properties },
  {
    additionalProperties: false,
    allOf: CREATE_RULES,
    description:
      'agentTask is required (not empty) unless builderMode is FLOW; greetingMessage is required (not blank) for ' +
      'VOICE agents, the default agentType.',
  },
);
export type CreateAgentBody = Static<typeof CreateAgentBody>;

export const UpdateAgentBody = Type.Object(
  {
    ...Type.Partial(Type.Object(writableFields)).properties,
    isActive: Type.Optional(
      Type.Boolean({ description: 'false pauses the agent: it places and takes no calls until set true again.' }),
    ),
  },
  {
    additionalProperties: false,
    // Not if/then as on create: whether these hold depends on the stored agent, which a schema cannot see.
    description:
      'Only sent fields change. Every change increments version. A PROMPT agent cannot have its agentTask emptied, and ' +
      'switching back to PROMPT needs a non-empty agentTask (sent or stored); a VOICE agent, or one becoming VOICE, ' +
      'needs a greetingMessage that is not blank (sent or stored).',
  },
);
export type UpdateAgentBody = Static<typeof UpdateAgentBody>;

export const GetAgentQuery = Type.Object({
  includeTools: Type.Optional(
    StringEnum(['decrypted'] as const, {
      description:
        'decrypted: functionTools with bearer tokens in clear and built-in tools left out. Otherwise tokens come back encrypted.',
    }),
  ),
});

export type GetAgentQuery = Static<typeof GetAgentQuery>;

export const ListAgentsQuery = Type.Object({
  organisationId: Type.Optional(Id('Own organisation (optional)')),
  agentType: Type.Optional(StringEnum(AGENT_TYPES)),
  isActive: Type.Optional(Type.Boolean({ description: 'true: active agents only; false: paused agents only' })),
  search: Type.Optional(
    Type.String({ minLength: 1, maxLength: 200, description: 'Case-insensitive, in name and description' }),
  ),
  page: Type.Optional(Type.Integer({ minimum: 1, default: 1 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE })),
});

export type ListAgentsQuery = Static<typeof ListAgentsQuery>;

export const DuplicateBody = Type.Object(
  {
    name: Type.Optional(
      Type.String({ minLength: 1, maxLength: 255, description: "Default: the source's name plus ' (copy)'" }),
    ),
  },
  { additionalProperties: false },
);

export type DuplicateBody = Static<typeof DuplicateBody>;

export const BudgetQuery = Type.Object({
  organisationId: Type.Optional(Id('Own organisation (optional)')),
  agentId: Type.Optional(Id('An agent whose use of the budget to report')),
});

export type BudgetQuery = Static<typeof BudgetQuery>;
