/** The inputs of the agent service, as TypeBox schemas built from the agent's fields: the routes validate with them. */
import { Type, type Static } from '@sinclair/typebox';
import { Id, StringEnum } from '../http/schemas.ts';
import { AGENT_TYPES, writableFields } from './field-schemas.ts';

/** List pages: 20 agents unless asked, at most 100 (spec: list limits). */
export const DEFAULT_PAGE_SIZE = 20;

export const MAX_PAGE_SIZE = 100;

const { name, agentIdentity, ...optionalFields } = writableFields;
const Optional = Type.Partial(Type.Object(optionalFields));

export const CreateAgentBody = Type.Object(
  { name, agentIdentity, ...Optional.properties },
  {
    additionalProperties: false,
    description: 'agentTask is required unless builderMode is FLOW; greetingMessage is required for VOICE agents.',
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
  { additionalProperties: false, description: 'Only sent fields change. Every change increments version.' },
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
