import { Type, type Static } from '@sinclair/typebox';
import { Id, StringEnum } from '../../http/schemas.ts';
import { CALL_DIRECTIONS, CALL_TYPES } from '../repository/call-records.ts';

/** Records per page of the organisation list unless asked (spec: list limits). */
export const DEFAULT_LIST_LIMIT = 20;

export const MAX_LIST_LIMIT = 100;

export const JsonObject = (description?: string) =>
  Type.Record(Type.String(), Type.Unknown(), description ? { description } : {});

export const CreateCallBody = Type.Object(
  {
    roomName: Type.String({ minLength: 1, maxLength: 128, description: 'The Call ID; unique (a taken one is 409)' }),
    orgId: Id('Own organisation'),
    agentId: Id('An agent of the organisation'),
    participantName: Type.String({
      minLength: 1,
      maxLength: 255,
      description: 'Stored with its first letter upper case and the rest lower case',
    }),
    createdById: Type.Optional(Id('A member of the organisation; default the key owner')),
    phoneNumber: Type.Optional(Type.String({ maxLength: 32 })),
    callType: Type.Optional(
      StringEnum(CALL_TYPES, {
        description:
          'chat for CHAT agents, and only for them. Default: chat for a CHAT agent, sip with a phoneNumber, else web',
      }),
    ),
    callDirection: Type.Optional(StringEnum(CALL_DIRECTIONS, { description: 'Default OUTBOUND' })),
    campaignId: Type.Optional(Id('Links the call to a campaign')),
    customVariables: Type.Optional(JsonObject()),
    metaData: Type.Optional(JsonObject('Stored as sent, except flowResult, which only the service writes')),
    useCase: Type.Optional(
      Type.String({ minLength: 1, maxLength: 100, description: "The results' use case `use:<name>`" }),
    ),
    agentResult: Type.Optional(
      Type.Unknown({ description: "Ignored: a call's result is written only by the service" }),
    ),
  },
  { additionalProperties: false },
);

export type CreateCallBody = Static<typeof CreateCallBody>;

export const EndCallBody = Type.Object(
  {
    reason: Type.Optional(Type.String({ maxLength: 500, description: 'Stored in metaData.endReason' })),
  },
  { additionalProperties: false },
);

export type EndCallBody = Static<typeof EndCallBody>;

export const ListCallsQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_LIST_LIMIT, default: DEFAULT_LIST_LIMIT })),
  offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
  callType: Type.Optional(StringEnum(CALL_TYPES)),
  agentId: Type.Optional(Id('Not in the spec (MCP tool sessions_by_agent): only calls of this agent')),
});

export type ListCallsQuery = Static<typeof ListCallsQuery>;

export const StatsQuery = Type.Object({
  orgId: Type.Optional(Id('Own organisation (another one is 404)')),
  agentId: Type.Optional(Id()),
  callType: Type.Optional(StringEnum(CALL_TYPES)),
  excludeCallType: Type.Optional(StringEnum(CALL_TYPES, { description: 'Ignored when callType is sent' })),
});

export type StatsQuery = Static<typeof StatsQuery>;
