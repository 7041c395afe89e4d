/**
 * Route schemas of the per-agent results (spec document 2, "Results"; scope calls:read): the summary, the rows, the
 * CSV export and the organisation's default agent.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Envelope, Id, NullableString, StringEnum, authErrors, errors } from '../../../http/schemas.ts';
import { CALL_SOURCES } from '../../../calls/call-records.ts';

const TAGS = ['results'];
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

const AgentParams = Type.Object({ agentId: Id('Agent id') });

const countsBy = (description: string) =>
  Type.Array(Type.Object({ key: Type.String(), label: Type.String(), count: Type.Integer() }), { description });

export const summary = {
  tags: TAGS,
  summary: "Totals of an agent's results: calls, minutes, outcomes, and the use cases seen",
  description:
    'Counts placed calls that ended (and calls still live more than 2 hours after they started) in [from, to). A call ' +
    'without an outcome, or with one the agent no longer tracks, counts as no_result. `search` is ignored here; useCases ignore ' +
    'the useCase filter so every key stays visible.',
  params: AgentParams,
  querystring: ResultsFilters,
  response: {
    200: Envelope(
      Type.Object({
        calls: Type.Integer(),
        minutes: Type.Number({ description: 'Total call time, minutes, 2 decimals' }),
        outcomes: countsBy("Every tracked outcome in the agent's order, then no_result"),
        fields: Type.Array(
          Type.Object({
            key: Type.String(),
            label: Type.String(),
            type: Type.String(),
            choices: Type.Optional(Type.Array(Type.String())),
          }),
        ),
        useCases: countsBy('Keys for the useCase filter, most calls first'),
      }),
    ),
    ...authErrors,
    ...errors(404),
  },
};

export const ResultRow = Type.Object({
  callId: Type.String({ description: 'The call record id (session id)' }),
  roomName: Type.String({ description: 'The Call ID' }),
  startedAt: Type.String({ format: 'date-time' }),
  durationSeconds: Type.Unsafe<number | null>({ type: ['integer', 'null'] }),
  contactName: Type.String(),
  contactPhone: NullableString,
  direction: Type.String({ description: 'inbound or outbound' }),
  source: Type.String(),
  useCase: Type.String(),
  callStatus: NullableString,
  outcomeKey: Type.String(),
  outcomeLabel: Type.String(),
  captured: Type.Record(Type.String(), Type.Unknown(), { description: 'Values of the tracked fields, by field key' }),
  recordingUrl: NullableString,
  resultSource: Type.Unsafe<string | null>({
    type: ['string', 'null'],
    description: 'flow (FLOW agents), analysis (post-call AI analysis), or null: no result yet',
  }),
  flowPath: Type.Unsafe<string[] | null>({
    type: ['array', 'null'],
    items: { type: 'string' },
    description: 'Step keys the flow took (FLOW agents)',
  }),
});

export const results = {
  tags: TAGS,
  summary: "An agent's result rows, newest first",
  description:
    "A FLOW agent's result comes from its flow; otherwise from the post-call AI analysis, so a call that just ended may show " +
    'no_result for a minute or two.',
  params: AgentParams,
  querystring: ResultsQuery,
  response: {
    200: Envelope(
      Type.Object({
        items: Type.Array(ResultRow),
        total: Type.Integer(),
        page: Type.Integer(),
        pageSize: Type.Integer(),
      }),
    ),
    ...authErrors,
    ...errors(404),
  },
};

export const exportResults = {
  tags: TAGS,
  summary: "An agent's results as CSV (UTF-8 with byte order mark)",
  description:
    'Columns: Called on (agent time zone, YYYY-MM-DD HH:MM), Caller, Phone, Source, Use case, Outcome, one per tracked field ' +
    '(yes/no fields read Yes or No), Minutes, Call status, Actions, Call score, Classification, Sentiment, They said, Original quote, ' +
    `Summary, Recording (full URL; downloading it needs recordings:read). At most ${MAX_RESULTS_EXPORT.toLocaleString('en')} calls: a larger ` +
    'range is a 400. A cell that a spreadsheet would run as a formula is prefixed with an apostrophe.',
  params: AgentParams,
  querystring: ResultsFilters,
  response: {
    200: { description: 'CSV', content: { 'text/csv': { schema: { type: 'string' } } } },
    ...authErrors,
    ...errors(404),
  },
};

export const defaultAgent = {
  tags: TAGS,
  summary: 'The agent to show results for first',
  description:
    'The agent with the most recent placed call, else the most recently updated agent, else null. Deleted agents never count.',
  params: Type.Object({ organisationId: Id('Own organisation') }),
  response: { 200: Envelope(Type.Object({ agentId: NullableString })), ...authErrors },
};
