/** SQL of the call history: the filters of the list and the export, pages, and export batches in keyset order. */
import type { Queryable } from '../../db/database.ts';
import { isId } from '../../db/ids.ts';
import { exclusiveEnd, parseQueryDate } from '../query-dates.ts';
import { UNPLACED_STATUSES, type OutcomeClass } from '../repository/call-records.ts';
import type { HistoryFilters } from './types.ts';

export interface HistoryRow {
  id: string;
  room_name: string;
  phone_number: string | null;
  participant_name: string;
  call_direction: string;
  call_type: string;
  agent_id: string;
  agent_name: string;
  campaign_id: string | null;
  call_status: string | null;
  created_at: Date;
  ended_at: Date | null;
  call_duration: number | null;
  call_outcome: string | null;
  outcome_class: OutcomeClass | null;
  overview: Record<string, unknown> | null;
  custom_variables: Record<string, unknown>;
  recording_url: string | null;
}

const COLUMNS = `c.id, c.room_name, c.phone_number, c.participant_name, c.call_direction, c.call_type, c.agent_id, c.agent_name,
  c.campaign_id, c.call_status, c.created_at, c.ended_at, c.call_duration, c.call_outcome, c.outcome_class, c.overview,
  c.custom_variables, c.recording_url`;

export interface Condition {
  where: string;
  params: unknown[];
}

/** The WHERE clause of the filters (checked here: a bad date is a 400 naming it). */
export function historyCondition(organisationId: string, filters: HistoryFilters): Condition {
  const params: unknown[] = [organisationId, [...UNPLACED_STATUSES]];
  const where = ['c.organisation_id = $1', '(c.call_status is null or c.call_status <> all($2::text[]))'];
  const add = (sql: (n: number) => string, value: unknown) => where.push(sql(params.push(value)));
  if (filters.startDate) add((n) => `c.created_at >= $${n}`, parseQueryDate(filters.startDate, 'startDate').at);
  if (filters.endDate) {
    const end = parseQueryDate(filters.endDate, 'endDate');
    add((n) => (end.bare ? `c.created_at < $${n}` : `c.created_at <= $${n}`), exclusiveEnd(end));
  }
  if (filters.callDirection) add((n) => `c.call_direction = $${n}`, filters.callDirection);
  if (filters.outcome) add((n) => `c.outcome_class = $${n}`, filters.outcome);
  if (filters.agentId) add((n) => `c.agent_id = $${n}`, filters.agentId);
  if (filters.campaignsOnly) where.push('c.campaign_id is not null');
  if (filters.excludeCallType) add((n) => `c.call_type <> $${n}`, filters.excludeCallType);
  if (filters.search) {
    const like = `%${filters.search.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
    const n = params.push(like);
    const terms = [`c.participant_name ilike $${n}`, `c.phone_number ilike $${n}`, `c.room_name ilike $${n}`];
    const digits = filters.search.replace(/\D/g, '');
    // "+44 20 7946" finds +442079460000: the number's digits, wherever the search put its spaces and dashes.
    if (digits.length >= 3)
      terms.push(`regexp_replace(coalesce(c.phone_number, ''), '\\D', '', 'g') like $${params.push(`%${digits}%`)}`);
    if (isId(filters.search.toLowerCase())) terms.push(`c.id = $${params.push(filters.search.toLowerCase())}`);
    where.push(`(${terms.join(' or ')})`);
  }
  if (filters.transcript) {
    const n = params.push(`%${filters.transcript.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`);
    where.push(`exists (select 1 from call_transcripts t where t.call_id = c.id and t.text ilike $${n})`);
  }
  return { where: where.join(' and '), params };
}

export async function historyPage(
  sql: Queryable,
  condition: Condition,
  page: { limit: number; offset: number },
): Promise<{ rows: HistoryRow[]; total: number }> {
  const [counted] = await sql.unsafe<{ total: number }[]>(
    `select count(*)::int as total from call_records c where ${condition.where}`,
    condition.params as never[],
  );
  const rows = await sql.unsafe<HistoryRow[]>(
    `select ${COLUMNS} from call_records c where ${condition.where}
      order by c.created_at desc, c.id desc limit $${condition.params.length + 1} offset $${condition.params.length + 2}`,
    [...condition.params, page.limit, page.offset] as never[],
  );
  return { rows, total: counted?.total ?? 0 };
}

/** Rows newest first, `batchSize` at a time, `max` in all; each batch is its own query (no connection held between). */
export async function* historyBatches(
  sql: Queryable,
  condition: Condition,
  max: number,
  batchSize: number,
): AsyncGenerator<HistoryRow[]> {
  let after: { created_at: Date; id: string } | undefined;
  let left = max;
  while (left > 0) {
    const params = [...condition.params];
    const keyset = after
      ? ` and (c.created_at, c.id) < ($${params.push(after.created_at)}, $${params.push(after.id)})`
      : '';
    const rows = await sql.unsafe<HistoryRow[]>(
      `select ${COLUMNS} from call_records c where ${condition.where}${keyset}
        order by c.created_at desc, c.id desc limit $${params.push(Math.min(batchSize, left))}`,
      params as never[],
    );
    if (rows.length === 0) return;
    yield rows;
    left -= rows.length;
    const last = rows.at(-1)!;
    after = { created_at: last.created_at, id: last.id };
    if (rows.length < batchSize) return;
  }
}
