/**
 * Route schemas of the per-agent results (spec document 2, "Results"; scope calls:read): the summary, the rows, the
 * CSV export and the organisation's default agent.
 */
import { Type } from '@sinclair/typebox';
import { Envelope, Id, NullableString, authErrors, errors } from '../../../http/schemas.ts';
import { MAX_RESULTS_EXPORT, ResultsFilters, ResultsQuery } from '../../../calls/results/types.ts';
export {
  DEFAULT_RESULTS_PAGE_SIZE,
  MAX_RESULTS_PAGE_SIZE,
  MAX_RESULTS_EXPORT,
  USE_CASE_PATTERN,
  ResultsFilters,
  ResultsQuery,
} from '../../../calls/results/types.ts';

const TAGS = ['results'];
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
