/**
 * SQL of an agent's results. Which calls count (spec document 2, Results): placed calls that ended, and calls still
 * ringing or in progress only once they started more than 2 hours ago; scheduled calls not yet placed never. A call's
 * outcome is its agent result's key while the agent still tracks that key, else no_result.
 */
import type { ResultsConfig } from '@parley/engine/protocol';
import type { Queryable } from '../../db/database.ts';
import {
  LIVE_STATUSES,
  UNPLACED_STATUSES,
  type AgentResult,
  type CallActions,
  type CallSource,
} from '../repository/call-records.ts';

/** Spec: calls still ringing or in progress are counted only when they started more than this long ago. */
export const STALE_LIVE_CALL_SECONDS = 2 * 60 * 60;

export interface ResultsAgent {
  id: string;
  name: string;
  timezone: string | null;
  results_config: ResultsConfig | null;
}

export async function resultsAgent(
  sql: Queryable,
  organisationId: string,
  agentId: string,
): Promise<ResultsAgent | undefined> {
  const [agent] = await sql<ResultsAgent[]>`select id, name, timezone, results_config from agents
    where id = ${agentId} and organisation_id = ${organisationId} and deleted_at is null`;
  return agent;
}

export interface ResultsScope {
  organisationId: string;
  agentId: string;
  from: Date;
  to: Date;
  source?: CallSource;
  useCase?: string;
  search?: string;
  /** Tracked outcome keys: an outcome outside them reads no_result. */
  trackedOutcomes: string[];
  /** Only calls of this outcome (a tracked key or no_result). */
  outcome?: string;
}

export interface Condition {
  where: string;
  params: unknown[];
  /** The expression of a call's outcome key; the first use adds the tracked keys to `params`, so take it before querying. */
  outcome(): string;
}

export function resultsCondition(
  scope: ResultsScope,
  parts: { useCase?: boolean; search?: boolean; outcome?: boolean } = {},
): Condition {
  const params: unknown[] = [
    scope.organisationId,
    scope.agentId,
    [...UNPLACED_STATUSES],
    [...LIVE_STATUSES],
    scope.from,
    scope.to,
  ];
  let tracked: number | undefined;
  const outcome = () => {
    tracked ??= params.push(scope.trackedOutcomes);
    return `case when c.agent_result->>'outcomeKey' = any($${tracked}::text[]) then c.agent_result->>'outcomeKey' else 'no_result' end`;
  };
  const where = [
    'c.organisation_id = $1',
    'c.agent_id = $2',
    '(c.call_status is null or c.call_status <> all($3::text[]))',
    `(c.ended_at is not null or (c.call_status = any($4::text[]) and c.started_at < now() - make_interval(secs => ${STALE_LIVE_CALL_SECONDS})))`,
    'c.started_at >= $5',
    'c.started_at < $6',
  ];
  if (scope.source) where.push(`c.source = $${params.push(scope.source)}`);
  if (scope.useCase && parts.useCase !== false) where.push(`c.use_case_key = $${params.push(scope.useCase)}`);
  if (scope.search && parts.search !== false) {
    const n = params.push(`%${scope.search.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`);
    const terms = [`c.participant_name ilike $${n}`, `c.phone_number ilike $${n}`];
    const digits = scope.search.replace(/\D/g, '');
    if (digits.length >= 3)
      terms.push(`regexp_replace(coalesce(c.phone_number, ''), '\\D', '', 'g') like $${params.push(`%${digits}%`)}`);
    where.push(`(${terms.join(' or ')})`);
  }
  if (scope.outcome && parts.outcome !== false) where.push(`${outcome()} = $${params.push(scope.outcome)}`);
  return { where: where.join(' and '), params, outcome };
}

export async function totals(
  sql: Queryable,
  condition: Condition,
): Promise<{ calls: number; ms: number; outcomes: Map<string, number> }> {
  const outcome = condition.outcome();
  const rows = await sql.unsafe<{ outcome: string; calls: number; ms: string }[]>(
    `select ${outcome} as outcome, count(*)::int as calls, coalesce(sum(c.call_duration), 0)::bigint as ms
       from call_records c where ${condition.where} group by 1`,
    [...condition.params] as never[],
  );
  return {
    calls: rows.reduce((n, r) => n + r.calls, 0),
    ms: rows.reduce((n, r) => n + Number(r.ms), 0),
    outcomes: new Map(rows.map((r) => [r.outcome, r.calls])),
  };
}

export async function useCaseCounts(
  sql: Queryable,
  condition: Condition,
): Promise<{ key: string; campaign_id: string | null; count: number }[]> {
  return sql.unsafe(
    `select c.use_case_key as key, min(c.campaign_id) as campaign_id, count(*)::int as count
       from call_records c where ${condition.where} group by 1 order by 3 desc, 1`,
    [...condition.params] as never[],
  );
}

export async function count(sql: Queryable, condition: Condition): Promise<number> {
  const [row] = await sql.unsafe<{ n: number }[]>(
    `select count(*)::int as n from call_records c where ${condition.where}`,
    [...condition.params] as never[],
  );
  return row?.n ?? 0;
}

export interface ResultCallRow {
  id: string;
  room_name: string;
  started_at: Date;
  call_duration: number | null;
  participant_name: string;
  phone_number: string | null;
  call_direction: 'INBOUND' | 'OUTBOUND';
  source: CallSource;
  use_case_key: string;
  call_status: string | null;
  outcome_class: string | null;
  outcome: string;
  agent_result: AgentResult | null;
  recording_url: string | null;
  overview: Record<string, unknown> | null;
  actions: CallActions | null;
}

const ROW_COLUMNS = `c.id, c.room_name, c.started_at, c.call_duration, c.participant_name, c.phone_number, c.call_direction, c.source,
  c.use_case_key, c.call_status, c.outcome_class, c.agent_result, c.recording_url, c.overview, c.actions`;

export async function resultRows(
  sql: Queryable,
  condition: Condition,
  page: { limit: number; offset: number },
): Promise<ResultCallRow[]> {
  const outcome = condition.outcome();
  const n = condition.params.length;
  return sql.unsafe<ResultCallRow[]>(
    `select ${ROW_COLUMNS}, ${outcome} as outcome from call_records c where ${condition.where}
      order by c.started_at desc, c.id desc limit $${n + 1} offset $${n + 2}`,
    [...condition.params, page.limit, page.offset] as never[],
  );
}

/** Rows newest first, a batch per query, keyset-paged: no connection is held while the export is written. */
export async function* resultBatches(
  sql: Queryable,
  condition: Condition,
  batchSize: number,
): AsyncGenerator<ResultCallRow[]> {
  let after: { started_at: Date; id: string } | undefined;
  const outcome = condition.outcome();
  for (;;) {
    const params = [...condition.params];
    const keyset = after
      ? ` and (c.started_at, c.id) < ($${params.push(after.started_at)}, $${params.push(after.id)})`
      : '';
    const rows = await sql.unsafe<ResultCallRow[]>(
      `select ${ROW_COLUMNS}, ${outcome} as outcome from call_records c where ${condition.where}${keyset}
        order by c.started_at desc, c.id desc limit $${params.push(batchSize)}`,
      params as never[],
    );
    if (rows.length === 0) return;
    yield rows;
    if (rows.length < batchSize) return;
    const last = rows.at(-1)!;
    after = { started_at: last.started_at, id: last.id };
  }
}

/** The agent with the most recent placed call, else the most recently updated one; deleted agents never. */
export async function defaultAgentId(sql: Queryable, organisationId: string): Promise<string | null> {
  const [row] = await sql<{ id: string }[]>`
    select a.id from agents a
      left join lateral (select max(c.started_at) as last_call from call_records c
                          where c.agent_id = a.id and c.call_status is not null and c.call_status <> all(${UNPLACED_STATUSES as string[]})) calls on true
     where a.organisation_id = ${organisationId} and a.deleted_at is null
     order by calls.last_call desc nulls last, a.updated_at desc, a.id desc
     limit 1`;
  return row?.id ?? null;
}
