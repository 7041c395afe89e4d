/**
 * Job lag of the leased jobs (docs/architecture.md §19): for the call scheduler, post-call analysis, the campaign
 * dialler and knowledge processing, how many items are due and not taken, and how long the oldest has waited. Read
 * from Postgres at each scrape, so it rises when no control plane is taking work at all — the case a lag metric is
 * for. Every control plane reports the same figures (they share the tables): take the max across instances.
 */
import { Gauge } from 'prom-client';
import { metricsRegistry } from '@parley/engine/metrics';
import type { Queryable } from '../db/database.ts';
import { analysisJobsLag } from '../calls/repository/analysis-job-repository.ts';
import { scheduledCallsLag } from '../calls/repository/job-repository.ts';
import { diallerLag } from '../campaigns/dialler-repository.ts';
import { knowledgeJobsLag } from '../knowledge/knowledge-repository.ts';

/**
 * Longest a scrape waits for the lag queries, ms: Prometheus's default scrape timeout is 10 s, and the other
 * metrics must not wait on a database that is down (the gauges then keep their last values).
 */
const LAG_QUERY_TIMEOUT_MS = 2_000;

type LagQuery = (sql: Queryable) => Promise<{ backlog: number; lagSeconds: number }>;

const JOBS: Record<string, LagQuery> = {
  scheduler: scheduledCallsLag,
  'post-call': analysisJobsLag,
  dialler: diallerLag,
  knowledge: knowledgeJobsLag,
};

/** Databases of the control planes this process runs (one in production; tests build several apps). */
const sources = new Set<Queryable>();

const lag = new Gauge({
  name: 'parley_job_lag_seconds',
  help: 'How long the oldest due, untaken item of a leased job has waited, by job (0 when none waits).',
  labelNames: ['job'] as const,
  registers: [metricsRegistry],
  collect: () => refreshOnce(),
});

const backlog = new Gauge({
  name: 'parley_job_backlog',
  help: 'Items of a leased job that are due and not taken, by job.',
  labelNames: ['job'] as const,
  registers: [metricsRegistry],
  collect: () => refreshOnce(),
});

/** The queries in flight: a scrape collects both gauges at once, and both wait for the one set of queries. */
let refreshing: Promise<void> | undefined;

function refreshOnce(): Promise<void> {
  refreshing ??= refresh().finally(() => {
    refreshing = undefined;
  });
  return refreshing;
}

async function refresh(): Promise<void> {
  const sql = [...sources].at(-1);
  if (!sql) return;
  await Promise.all(
    Object.entries(JOBS).map(async ([job, query]) => {
      const figures = await withTimeout(query(sql), LAG_QUERY_TIMEOUT_MS).catch(() => undefined);
      if (!figures) return;
      lag.set({ job }, figures.lagSeconds);
      backlog.set({ job }, figures.backlog);
    }),
  );
}

/** Reports the jobs of the control plane on `sql` in the process's metrics; the answer stops it (on close). */
export function watchJobLag(sql: Queryable): () => void {
  sources.add(sql);
  return () => sources.delete(sql);
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    work,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('timeout')), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
