/**
 * Route schemas of /call-history (spec document 2): the calls of an organisation for reports, their Excel export and
 * a call's transcript. The list's envelope (`sessions` and `pagination`) and the fields beyond those the spec lists
 * are Parley's design.
 */
import { Type, type Static } from '@sinclair/typebox';
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
import { CALL_DIRECTIONS, CALL_TYPES, OUTCOME_CLASSES } from '../../../calls/call-records.ts';

const TAGS = ['call history'];
export const DEFAULT_PAGE_SIZE = 20;
/** Spec document 3: up to 100 per page. */
export const MAX_PAGE_SIZE = 100;
/** Spec document 3: the Excel export holds up to 10,000 calls (the newest that match). */
export const MAX_EXPORT_ROWS = 10_000;

const filterFields = {
  startDate: Type.Optional(
    Type.String({
      maxLength: 40,
      description:
        'From this time on (ISO 8601; write a + offset as %2B), or from the start of a date (YYYY-MM-DD, UTC)',
    }),
  ),
  endDate: Type.Optional(
    Type.String({ maxLength: 40, description: 'Up to this time, or to the end of a date (YYYY-MM-DD, UTC)' }),
  ),
  callDirection: Type.Optional(StringEnum(CALL_DIRECTIONS)),
  outcome: Type.Optional(
    StringEnum(OUTCOME_CLASSES, {
      description:
        'answered: picked up by a person; no_answer, busy, rejected, voicemail; failed: could not be carried out',
    }),
  ),
  agentId: Type.Optional(Id()),
  campaignsOnly: Type.Optional(Type.Boolean({ description: 'true: only calls of campaigns' })),
  excludeCallType: Type.Optional(StringEnum(CALL_TYPES, { description: 'e.g. chat' })),
  search: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 100,
      description:
        'Case-insensitive, in the name, the number (digits anywhere) or the Call ID (room name, or the session id)',
    }),
  ),
  transcript: Type.Optional(
    Type.String({
      minLength: 2,
      maxLength: 200,
      description:
        'Not in the spec (MCP tool calls_search): case-insensitive, in what was said by either side of the call',
    }),
  ),
};

export const HistoryFilters = Type.Object(filterFields);
export type HistoryFilters = Static<typeof HistoryFilters>;

export const HistoryQuery = Type.Object({
  ...filterFields,
  page: Type.Optional(Type.Integer({ minimum: 1, default: 1 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE })),
});
export type HistoryQuery = Static<typeof HistoryQuery>;

export const HistoryItem = Type.Object({
  id: Type.String(),
  roomName: Type.String({ description: 'The Call ID' }),
  phoneNumber: NullableString,
  participantName: Type.String(),
  callDirection: Type.String(),
  callType: Type.String(),
  agentId: Type.String(),
  agentName: Type.String(),
  campaignId: NullableString,
  callStatus: NullableString,
  createdAt: Timestamp,
  endedAt: NullableTimestamp,
  callDuration: Type.Unsafe<number | null>({ type: ['integer', 'null'], description: 'Milliseconds' }),
  callOutcome: NullableString,
  outcome: Type.Unsafe<string | null>({
    type: ['string', 'null'],
    description: 'The outcome filter value the call matches; null while it is not over',
  }),
  overview: Type.Unsafe<Record<string, unknown> | null>({
    type: ['object', 'null'],
    additionalProperties: true,
    description: 'score, classification, user_sentiment, summary, result',
  }),
  customVariables: Type.Record(Type.String(), Type.Unknown()),
  recordingUrl: NullableString,
});

const orgParams = Type.Object({ orgId: Id('Own organisation') });

export const listHistory = {
  tags: TAGS,
  summary: "The organisation's calls for reports, newest first, a page at a time",
  description: `Pages of ${DEFAULT_PAGE_SIZE} calls unless limit says otherwise (at most ${MAX_PAGE_SIZE}). Scheduled calls not yet placed are left out.`,
  params: orgParams,
  querystring: HistoryQuery,
  response: {
    200: Envelope(
      Type.Object({
        sessions: Type.Array(HistoryItem),
        pagination: Type.Object({
          page: Type.Integer(),
          limit: Type.Integer(),
          total: Type.Integer(),
          totalPages: Type.Integer(),
        }),
      }),
    ),
    ...authErrors,
  },
};

export const exportHistory = {
  tags: TAGS,
  summary: 'The same calls as an Excel workbook, one row per call',
  description: `The newest ${MAX_EXPORT_ROWS.toLocaleString('en')} calls that match the filters, streamed as .xlsx. Times are UTC.`,
  params: orgParams,
  querystring: HistoryFilters,
  response: {
    200: {
      description: 'An Excel workbook (sheet "Calls")',
      content: {
        'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': {
          schema: { type: 'string', format: 'binary' },
        },
      },
    },
    ...authErrors,
  },
};

export const TranscriptLineSchema = Type.Object({
  id: Type.String(),
  speaker: Type.String({ description: 'assistant: the agent; user: the other person' }),
  text: Type.String(),
  startMs: Type.Integer({ description: "From the call's start, ms" }),
  endMs: Type.Integer(),
  interrupted: Type.Boolean({
    description: 'An agent line cut short by the caller: the text is what was actually heard',
  }),
  createdAt: Timestamp,
});

export const transcripts = {
  tags: TAGS,
  summary: 'Every transcript line of a call, in spoken order',
  description: 'By room name (the Call ID); a session id is not a room name and gives 404.',
  params: Type.Object({ roomName: Type.String({ minLength: 1, maxLength: 128 }) }),
  response: {
    200: Envelope(
      Type.Object({ roomName: Type.String(), sessionId: Type.String(), transcripts: Type.Array(TranscriptLineSchema) }),
    ),
    ...authErrors,
    ...errors(404),
  },
};
