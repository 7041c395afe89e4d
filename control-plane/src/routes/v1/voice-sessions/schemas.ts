/**
 * Route schemas of /voice-sessions (spec document 2, "Calls: placing and call records"): call records and their
 * statistics. Where the spec leaves values out (callStatus beyond COMPLETED, the record's extra fields) the
 * descriptions here are Parley's design.
 */
import { Type } from '@sinclair/typebox';
import {
  Envelope,
  Id,
  NullableString,
  NullableTimestamp,
  StringEnum,
  Timestamp,
  authErrors,
  errors,
} from '../../../http/schemas.ts';
import { CALL_DIRECTIONS, CALL_SOURCES, CALL_STATUSES, CALL_TYPES } from '../../../calls/repository/call-records.ts';
import {
  DEFAULT_LIST_LIMIT,
  MAX_LIST_LIMIT,
  CreateCallBody,
  EndCallBody,
  ListCallsQuery,
  StatsQuery,
  JsonObject,
} from '../../../calls/sessions/types.ts';
export {
  DEFAULT_LIST_LIMIT,
  MAX_LIST_LIMIT,
  CreateCallBody,
  EndCallBody,
  ListCallsQuery,
  StatsQuery,
} from '../../../calls/sessions/types.ts';

const TAGS = ['calls'];
const NullableObject = (description: string) =>
  Type.Unsafe<Record<string, unknown> | null>({ type: ['object', 'null'], additionalProperties: true, description });
const NullableInteger = (description: string) => Type.Unsafe<number | null>({ type: ['integer', 'null'], description });

export const CallRecordSchema = Type.Object(
  {
    id: Type.String({ description: 'Session id: 24-character hexadecimal' }),
    roomName: Type.String({ description: 'The Call ID shown to users; unique' }),
    orgId: Type.String(),
    agentId: Type.String(),
    campaignId: NullableString,
    participantName: Type.String({ description: 'First letter upper case, the rest lower case' }),
    phoneNumber: NullableString,
    createdById: NullableString,
    createdAt: Timestamp,
    endedAt: NullableTimestamp,
    customVariables: JsonObject(),
    scheduledTime: NullableTimestamp,
    scheduledStatus: Type.Unsafe<string | null>({
      type: ['string', 'null'],
      description: 'PENDING, DISPATCHED, CANCELLED or FAILED for scheduled calls',
    }),
    callingNumber: Type.Unsafe<string | null>({
      type: ['string', 'null'],
      description: 'OUTBOUND: the caller number; INBOUND: the number that was called',
    }),
    metaData: JsonObject('Client metadata; `endReason` says why the call ended'),
    callType: StringEnum(CALL_TYPES),
    callDirection: StringEnum(CALL_DIRECTIONS),
    callStatus: Type.Unsafe<string | null>({
      type: ['string', 'null'],
      enum: [...CALL_STATUSES, null],
      description:
        'null: a record only. SCHEDULED/QUEUED: waiting to be placed; INITIATED: handed to an engine; RINGING; IN_PROGRESS: answered; ' +
        'COMPLETED: over (callOutcome says how); FAILED: could not be carried out; CANCELLED: a scheduled call called off.',
    }),
    callDuration: NullableInteger('Milliseconds'),
    callOutcome: Type.Unsafe<string | null>({
      type: ['string', 'null'],
      description: 'completed, no_answer, busy, rejected, voicemail, failed',
    }),
    callOutcomeDetail: NullableString,
    isBilled: Type.Boolean(),
    billedAt: NullableTimestamp,
    agentName: Type.String(),
    greetingMessage: NullableString,
    recordingUrl: Type.Unsafe<string | null>({
      type: ['string', 'null'],
      description: 'Relative path of the recording endpoint under /api/v1',
    }),
    overview: NullableObject(
      'Call overview: score (1–10, null with no conversation), classification, user_sentiment, summary (≤ 3), result',
    ),
    actions: Type.Object({
      tracking: Type.String({
        description: 'One-line summary of the items, e.g. "2 tool calls (1 failed): lookup; keys pressed: 1 2"',
      }),
      items: Type.Array(JsonObject(), {
        description:
          'Tool calls ({type: tool_call, name, ok, durationMs, atMs}) and keys pressed ({type: dtmf, digit, atMs}) in call order',
      }),
    }),
    agentResult: NullableObject(
      'The result for the agent: outcomeKey, outcomeLabel, captured, resultSource (flow or analysis), flowPath, decidedAt. Written only by the service.',
    ),
    source: StringEnum(CALL_SOURCES, { description: 'How the call came about' }),
    useCase: NullableString,
    answeredAt: NullableTimestamp,
    startedAt: Type.String({
      format: 'date-time',
      description: 'When the call was placed (a record only: when it was created)',
    }),
    updatedAt: Timestamp,
    latency: NullableObject("The engine's latency report: greetingMs and per-turn figures, ms"),
    analysisStatus: Type.Unsafe<string | null>({
      type: ['string', 'null'],
      description: 'Post-call analysis: pending, done, failed, or skipped (no language model)',
    }),
    analysisError: NullableString,
    organisation: Type.Optional(Type.Object({ id: Type.String(), name: Type.String(), type: Type.String() })),
    agent: Type.Optional(
      Type.Object({ id: Type.String(), name: Type.String(), language: Type.String(), gender: NullableString }),
    ),
    createdBy: Type.Optional(
      Type.Unsafe<{ id: string; name: string; email: string } | null>({
        type: ['object', 'null'],
        properties: { id: { type: 'string' }, name: { type: 'string' }, email: { type: 'string' } },
      }),
    ),
  },
  { description: 'A call record (spec document 1)' },
);

const OneCall = Envelope(CallRecordSchema);

export const createCall = {
  tags: TAGS,
  summary: 'Create a call record (no call is placed)',
  description:
    "Only a record: no call, no audio. The agent's totalCalls goes up by one and its lastUsed is set. callType chat goes " +
    'with CHAT agents only (400). An unknown body field is a 400 naming it.',
  body: CreateCallBody,
  response: { 201: OneCall, ...authErrors, ...errors(404, 409) },
};

export const SessionParams = Type.Object({ sessionId: Id('Session id') });
export const RoomParams = Type.Object({ roomName: Type.String({ minLength: 1, maxLength: 128 }) });

export const getCall = {
  tags: TAGS,
  summary: 'One call record, with its organisation, agent and creator',
  params: SessionParams,
  response: { 200: OneCall, ...authErrors, ...errors(404) },
};

export const getCallByRoom = {
  tags: TAGS,
  summary: 'A call record by room name (Call ID)',
  params: RoomParams,
  response: { 200: OneCall, ...authErrors, ...errors(404) },
};

export const endCall = {
  tags: TAGS,
  summary: 'End a call: COMPLETED, endedAt now, callDuration, metaData.endReason',
  description:
    'callDuration runs from when the call was answered (a record never answered: from its creation) to now. When an engine is ' +
    'still running the call it is told to hang up. A call that has already ended is returned unchanged.',
  params: RoomParams,
  body: Type.Optional(EndCallBody),
  response: { 200: OneCall, ...authErrors, ...errors(404) },
};

export const listCalls = {
  tags: TAGS,
  summary: "The organisation's call records, newest first",
  description: `Offset pagination: ${DEFAULT_LIST_LIMIT} records unless limit says otherwise (at most ${MAX_LIST_LIMIT}). Scheduled calls not yet placed are left out.`,
  params: Type.Object({ orgId: Id('Own organisation') }),
  querystring: ListCallsQuery,
  response: { 200: Envelope(Type.Array(CallRecordSchema)), ...authErrors },
};

export const stats = {
  tags: TAGS,
  summary: 'Counts of calls: total, answered, not answered, failed',
  description:
    'total counts every call but scheduled ones not yet placed; answered: the call was picked up by a person; notAnswered: ' +
    'no answer, busy, rejected or voicemail; failed: it could not be carried out. Calls still running, and records only, are in total alone.',
  querystring: StatsQuery,
  response: {
    200: Envelope(
      Type.Object({
        total: Type.Integer(),
        answered: Type.Integer(),
        notAnswered: Type.Integer(),
        failed: Type.Integer(),
      }),
    ),
    ...authErrors,
    ...errors(404),
  },
};
