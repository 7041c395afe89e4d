import { Type, type Static } from '@sinclair/typebox';
import { Id, StringEnum } from '../../http/schemas.ts';
import { CALL_DIRECTIONS, CALL_TYPES, OUTCOME_CLASSES } from '../repository/call-records.ts';

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
