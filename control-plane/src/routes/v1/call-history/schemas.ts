/**
 * Route schemas of /call-history (spec document 2): the calls of an organisation for reports, their Excel export and
 * a call's transcript. The list's envelope (`sessions` and `pagination`) and the fields beyond those the spec lists
 * are Parley's design.
 */
import { Type } from '@sinclair/typebox';
import {
  Envelope,
  Id,
  NullableString,
  NullableTimestamp,
  Timestamp,
  authErrors,
  errors,
} from '../../../http/schemas.ts';
import {
  DEFAULT_PAGE_SIZE,
  MAX_PAGE_SIZE,
  MAX_EXPORT_ROWS,
  HistoryFilters,
  HistoryQuery,
} from '../../../calls/history/types.ts';
export {
  DEFAULT_PAGE_SIZE,
  MAX_PAGE_SIZE,
  MAX_EXPORT_ROWS,
  HistoryFilters,
  HistoryQuery,
} from '../../../calls/history/types.ts';

const TAGS = ['call history'];
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
