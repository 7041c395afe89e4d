import { Type, type Static } from '@sinclair/typebox';
import { StringEnum } from '../../http/schemas.ts';
import { CALL_SOURCES } from '../repository/call-records.ts';

/** Spec document 3: results pages hold 50 rows by default. */
export const DEFAULT_RESULTS_PAGE_SIZE = 50;

export const MAX_RESULTS_PAGE_SIZE = 200;

/** Spec document 3: the export holds at most 20,000 calls; a larger range is refused. */
export const MAX_RESULTS_EXPORT = 20_000;

/** `useCase` keys as the summary lists them. */
export const USE_CASE_PATTERN = '^(use:.{1,100}|campaign:[0-9a-f]{24}|line:[^\\s]{1,40}|unlabelled)$';

const filterFields = {
  from: Type.Optional(
    Type.String({
      maxLength: 40,
      description: 'Inclusive: a date (midnight UTC) or ISO 8601 date-time. Default 30 days before `to`',
    }),
  ),
  to: Type.Optional(
    Type.String({
      maxLength: 40,
      description:
        'Exclusive: ISO 8601 date-time, or a date (that whole day, UTC, is included). Default now; must be after from',
    }),
  ),
  source: Type.Optional(StringEnum(CALL_SOURCES, { description: 'How the call came about' })),
  useCase: Type.Optional(
    Type.String({
      pattern: USE_CASE_PATTERN,
      description: "A key of the summary's useCases: use:<name>, campaign:<id>, line:<number called>, unlabelled",
    }),
  ),
  search: Type.Optional(
    Type.String({ minLength: 1, maxLength: 100, description: 'Case-insensitive, in the contact name or phone number' }),
  ),
};

export const ResultsFilters = Type.Object(filterFields);

export type ResultsFilters = Static<typeof ResultsFilters>;

export const ResultsQuery = Type.Object({
  ...filterFields,
  outcome: Type.Optional(
    Type.String({ minLength: 1, maxLength: 64, description: 'An outcome key the agent tracks, or no_result' }),
  ),
  page: Type.Optional(Type.Integer({ minimum: 1, default: 1 })),
  pageSize: Type.Optional(
    Type.Integer({ minimum: 1, maximum: MAX_RESULTS_PAGE_SIZE, default: DEFAULT_RESULTS_PAGE_SIZE }),
  ),
});

export type ResultsQuery = Static<typeof ResultsQuery>;
