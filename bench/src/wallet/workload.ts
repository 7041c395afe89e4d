/**
 * The wallet suite's data and load: organisations with funded wallets and calls in conversation, then each call's
 * `ended` event applied twice at once (a JetStream redelivery racing the first delivery), at full speed with at most
 * `concurrency` events in flight, through the control plane's own event store — the transaction that applies the
 * end, meters the call and debits the wallet.
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import {
  adjustWallet,
  migrate,
  newId,
  openDatabase,
  persistCallEvent,
  provisionOrganisation,
  unbalancedTransactions,
  walletReplay,
  type Database,
  type PersistOutcome,
  type Sql,
} from '@parley/control-plane';
import type { CallEvent } from '@parley/engine/protocol';
import { SampleBuffer } from '../percentiles.ts';

export interface WalletWorkload {
  organisations: number;
  calls: number;
  /** Deliveries of each call's `ended` event, all in flight together. */
  deliveries: number;
  /** Events being applied at once (and the pool's size). */
  concurrency: number;
}

export const DEFAULT_WORKLOAD: WalletWorkload = { organisations: 50, calls: 1_000, deliveries: 2, concurrency: 16 };

/** What each wallet starts with, cents: far more than its calls cost, so every call is paid (one debit each). */
const OPENING_BALANCE_MINOR = 100_000;

export interface WalletRun {
  database: string;
  workload: WalletWorkload;
  elapsedMs: number;
  /** Per delivery, ms. */
  latency: Float64Array;
  outcomes: Record<PersistOutcome, number>;
  checks: WalletChecks;
  /** Trivial statements (`select 1`) the database answered per second at the same concurrency, just before. */
  roundTripsPerSecond: number;
}

/** How long the round-trip baseline runs, ms. */
const ROUND_TRIP_BASELINE_MS = 2_000;

export interface WalletChecks {
  usageRecords: number;
  debits: number;
  paidRecords: number;
  billedCalls: number;
  wallets: number;
  /** Wallets whose stored balance differs from the replay of their journal. */
  walletsOffJournal: number;
  unbalancedTransactions: number;
  /** Σ opening − Σ balances = Σ usage charged: money neither lost nor counted twice. */
  moneyAccountedFor: boolean;
}

/** Sets up a database of its own (a fresh schema of `databaseUrl`, or an in-memory PGlite), runs, checks, drops it. */
export async function runWalletWorkload(
  databaseUrl: string | undefined,
  workload: WalletWorkload,
  log: (text: string) => void,
  signal: AbortSignal,
): Promise<WalletRun> {
  const schema = databaseUrl ? `bench_${randomBytes(6).toString('hex')}` : 'public';
  const db = await openDatabase({ databaseUrl, schema, dataDir: undefined, maxConnections: workload.concurrency });
  try {
    await migrate(db.sql, schema);
    log(`${db.description}: ${workload.organisations} organisations, ${workload.calls} calls in conversation…`);
    const calls = await seed(db.sql, workload);
    const roundTripsPerSecond = await measureRoundTrips(db.sql, workload.concurrency);
    const deliveries = calls.flatMap((call) => Array.from({ length: workload.deliveries }, () => call));
    log(`applying ${deliveries.length} ended events, ${workload.concurrency} at a time…`);
    const latency = new SampleBuffer();
    const outcomes: Record<PersistOutcome, number> = { applied: 0, duplicate: 0, unknown_call: 0 };
    let next = 0;
    const started = performance.now();
    const worker = async () => {
      while (next < deliveries.length && !signal.aborted) {
        const call = deliveries[next++]!;
        const t0 = performance.now();
        const outcome = await persistCallEvent(db.sql, call.id, call.event);
        latency.push(performance.now() - t0);
        outcomes[outcome] += 1;
      }
    };
    await Promise.all(Array.from({ length: workload.concurrency }, worker));
    const elapsedMs = performance.now() - started;
    const checks = await check(db, workload);
    return {
      database: db.description,
      workload,
      elapsedMs,
      latency: latency.sorted(),
      outcomes,
      checks,
      roundTripsPerSecond,
    };
  } finally {
    if (databaseUrl) await db.sql.unsafe(`drop schema if exists "${schema}" cascade`);
    await db.close();
  }
}

/** The machine's ceiling for any work of N statements: `select 1` round trips per second at `concurrency`. */
async function measureRoundTrips(sql: Sql, concurrency: number): Promise<number> {
  let count = 0;
  const until = performance.now() + ROUND_TRIP_BASELINE_MS;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) {
        await sql`select 1`;
        count += 1;
      }
    }),
  );
  return count / ((performance.now() - started) / 1000);
}

interface SeededCall {
  id: string;
  event: CallEvent;
}

/** Organisations (provisioned as production does), funded wallets, one VOICE agent each, calls answered and live. */
async function seed(sql: Sql, workload: WalletWorkload): Promise<SeededCall[]> {
  const organisations: { id: string; agentId: string }[] = [];
  for (let i = 0; i < workload.organisations; i++) {
    const created = await provisionOrganisation(sql, {
      name: `Wallet bench ${i + 1}`,
      ownerEmail: `owner-${i + 1}-${newId()}@bench.example`,
    });
    const agentId = newId();
    await sql.begin(async (tx) => {
      await tx`insert into agents (id, organisation_id, name, agent_type)
               values (${agentId}, ${created.organisationId}, 'Bench agent', 'VOICE')`;
      await adjustWallet(tx, {
        organisationId: created.organisationId,
        amountMinor: OPENING_BALANCE_MINOR,
        reason: 'Wallet bench opening balance',
        actor: 'bench',
      });
    });
    organisations.push({ id: created.organisationId, agentId });
  }
  const calls: SeededCall[] = [];
  const rows = [];
  for (let i = 0; i < workload.calls; i++) {
    const organisation = organisations[i % organisations.length]!;
    const id = newId();
    // Durations from 1 s to about 10 minutes, spread evenly and the same each run.
    const durationMs = 1_000 + ((i * 7_919) % 600_000);
    rows.push({
      id,
      organisation_id: organisation.id,
      agent_id: organisation.agentId,
      room_name: `room-${id}`,
      participant_name: 'Caller',
      call_type: 'sip',
      call_direction: 'OUTBOUND',
      call_status: 'IN_PROGRESS',
      source: 'api',
      dispatched_at: new Date(Date.now() - durationMs - 5_000),
      answered_at: new Date(Date.now() - durationMs),
      last_event_at: new Date(),
    });
    calls.push({
      id,
      event: { type: 'ended', reason: 'caller_hangup', outcome: 'completed', durationMs, latency: { turns: [] } },
    });
  }
  for (let i = 0; i < rows.length; i += 200) await sql`insert into call_records ${sql(rows.slice(i, i + 200))}`;
  return calls;
}

async function check(db: Database, workload: WalletWorkload): Promise<WalletChecks> {
  const { sql } = db;
  const [counts] = await sql<
    {
      usage: number;
      debits: number;
      paid: number;
      billed: number;
      charged: string;
      balances: string;
      wallets: number;
    }[]
  >`
    select (select count(*)::int from usage_records where usage_type = 'VOICE_CALL') as usage,
           (select count(*)::int from ledger_transactions where type = 'DEBIT' and reference_type = 'VOICE_CALL') as debits,
           (select count(*)::int from usage_records where wallet_deducted) as paid,
           (select count(*)::int from call_records where is_billed) as billed,
           (select coalesce(sum(total_e4), 0) from usage_records) as charged,
           (select coalesce(sum(balance), 0) from ledger_accounts where kind = 'WALLET') as balances,
           (select count(*)::int from ledger_accounts where kind = 'WALLET') as wallets`;
  const wallets = await walletReplay(sql);
  const opening = workload.organisations * OPENING_BALANCE_MINOR;
  return {
    usageRecords: counts!.usage,
    debits: counts!.debits,
    paidRecords: counts!.paid,
    billedCalls: counts!.billed,
    wallets: counts!.wallets,
    walletsOffJournal: wallets.filter((w) => w.stored !== w.replayed).length,
    unbalancedTransactions: (await unbalancedTransactions(sql)).length,
    moneyAccountedFor: opening - Number(counts!.balances) === Number(counts!.charged) / 10_000,
  };
}
