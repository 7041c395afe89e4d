/**
 * The dialler suite's data and load: organisations with a funded wallet, a VOICE agent and one IN_PROGRESS campaign
 * each, 10,000 contacts in all; two dialler instances (two control planes) on one database, their clock set so the
 * campaigns' daily window opens one second after they start. Each call is admitted under the organisation's billing
 * row lock and recorded as the launch path records it, and the fake carrier answers it at once: the call ends
 * `completed` as soon as it is recorded, so lines free at once and what is measured is the dialler itself — leases,
 * windows, admission, records, settling.
 */
import { randomBytes } from 'node:crypto';
import {
  adjustWallet,
  admitCall,
  CampaignDialler,
  createCall,
  finishCall,
  migrate,
  newId,
  openDatabase,
  provisionOrganisation,
  type CampaignCallPlacer,
  type CampaignCallRequest,
  type Sql,
} from '@parley/control-plane';

export interface DiallerWorkload {
  organisations: number;
  contactsPerOrganisation: number;
  /** Lines each organisation may have live (PARLEY_DEFAULT_CONCURRENT_CALLS). */
  lines: number;
  /** Dialler instances sharing the database. */
  instances: number;
}

export const DEFAULT_WORKLOAD: DiallerWorkload = {
  organisations: 20,
  contactsPerOrganisation: 500,
  lines: 50,
  instances: 2,
};

/** The window opens this long after the diallers start, ms: their first passes run with it still closed. */
const WINDOW_OPENS_AFTER_MS = 1_000;
/** The whole run's bound, ms: the suite stays within a minute. */
const RUN_LIMIT_MS = 50_000;
/** How often completion is checked, ms. */
const CHECK_EVERY_MS = 250;
/** A Monday 09:00 UTC: the campaigns' window is 09:00–17:00 UTC. */
const WINDOW_OPENING = Date.parse('2027-01-04T09:00:00Z');

export interface DiallerRun {
  database: string;
  workload: DiallerWorkload;
  contacts: number;
  callsPlaced: number;
  /** Contacts called more than once, and never. */
  calledTwice: number;
  neverCalled: number;
  /** Contacts COMPLETED at the end. */
  completed: number;
  /** Seconds from the window opening to the last call. */
  elapsedSeconds: number;
  /** Calls per second from the window opening to the last call. */
  dispatchRate: number;
  /** Per campaign: from the window opening to its first call, ms (sorted). */
  firstCallLagMs: number[];
  /** Per call: from the window opening to the call's record, ms (sorted). */
  callLagMs: number[];
  /** Calls placed by each instance. */
  perInstance: number[];
  timedOut: boolean;
  /** Campaigns by status at the end, with why any was paused. */
  campaignStates: string[];
}

/** A fake carrier that answers at once: the call is admitted and recorded as the launch path does, then ends. */
class InstantCarrier implements CampaignCallPlacer {
  readonly #sql: Sql;
  readonly #lines: number;
  readonly #ending = new Set<Promise<unknown>>();

  constructor(sql: Sql, lines: number) {
    this.#sql = sql;
    this.#lines = lines;
  }

  async placeCampaignCall(call: CampaignCallRequest): Promise<void> {
    await this.#sql.begin(async (tx) => {
      await admitCall(tx, call.organisationId, { defaultConcurrentCalls: this.#lines });
      await createCall(tx, {
        id: call.callId,
        organisationId: call.organisationId,
        agentId: call.agentId,
        roomName: `call-${call.callId}`,
        participantName: call.participantName,
        phoneNumber: call.participantNumber,
        createdById: call.createdById,
        callType: 'sip',
        callDirection: 'OUTBOUND',
        campaignId: call.campaignId,
        customVariables: call.customVariables,
        callingNumber: call.callingNumber,
        status: 'QUEUED',
        source: 'campaign',
      });
    });
    // The carrier's "answered and ended" arrives on its own, as a status callback does, not within the placement.
    const ended = finishCall(this.#sql, call.callId, { status: 'COMPLETED', outcome: 'completed', analyse: false });
    this.#ending.add(ended);
    void ended.finally(() => this.#ending.delete(ended));
  }

  /** Waits for the calls still being ended. */
  async settled(): Promise<void> {
    await Promise.all([...this.#ending]);
  }
}

export async function runDiallerWorkload(
  databaseUrl: string | undefined,
  workload: DiallerWorkload,
  log: (text: string) => void,
  signal: AbortSignal,
): Promise<DiallerRun> {
  const schema = databaseUrl ? `bench_${randomBytes(6).toString('hex')}` : 'public';
  const db = await openDatabase({ databaseUrl, schema, dataDir: undefined, maxConnections: 20 });
  try {
    await migrate(db.sql, schema);
    const contacts = workload.organisations * workload.contactsPerOrganisation;
    log(
      `${db.description}: ${workload.organisations} campaigns, ${contacts} contacts, ${workload.instances} diallers…`,
    );
    await seed(db.sql, workload);
    const openAt = Date.now() + WINDOW_OPENS_AFTER_MS;
    const clock = () => new Date(WINDOW_OPENING + (Date.now() - openAt));
    const carriers = Array.from({ length: workload.instances }, () => new InstantCarrier(db.sql, workload.lines));
    const diallers = carriers.map((carrier, i) =>
      new CampaignDialler(db.sql, carrier, {
        admission: { defaultConcurrentCalls: workload.lines },
        now: clock,
        instanceId: `bench-${i + 1}`,
      }).start(),
    );
    let timedOut = false;
    try {
      const deadline = Date.now() + RUN_LIMIT_MS;
      for (;;) {
        const [row] = await db.sql<{ left: number }[]>`
          select count(*)::int as left from campaign_contacts where status <> 'COMPLETED'`;
        if (row!.left === 0 || signal.aborted) break;
        if (Date.now() > deadline) {
          timedOut = true;
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, CHECK_EVERY_MS));
      }
    } finally {
      await Promise.all(diallers.map((d) => d.stop()));
      await Promise.all(carriers.map((c) => c.settled()));
    }
    const perInstance = diallers.map((d) => d.health().callsPlaced);
    return { ...(await measure(db.sql, openAt)), database: db.description, workload, contacts, perInstance, timedOut };
  } finally {
    if (databaseUrl) await db.sql.unsafe(`drop schema if exists "${schema}" cascade`);
    await db.close();
  }
}

async function seed(sql: Sql, workload: DiallerWorkload): Promise<void> {
  for (let i = 0; i < workload.organisations; i++) {
    const created = await provisionOrganisation(sql, {
      name: `Dialler bench ${i + 1}`,
      ownerEmail: `owner-${i + 1}-${newId()}@bench.example`,
    });
    const organisationId = created.organisationId;
    const agentId = newId();
    const campaignId = newId();
    await sql.begin(async (tx) => {
      await tx`insert into agents (id, organisation_id, name, agent_type)
               values (${agentId}, ${organisationId}, 'Bench agent', 'VOICE')`;
      await adjustWallet(tx, { organisationId, amountMinor: 100_000, reason: 'Dialler bench', actor: 'bench' });
      await tx`insert into campaigns (id, organisation_id, created_by_id, name, voice_agent_id, dialing_number,
                                      call_start_time, call_end_time, timezone, retry_count, status, started_at)
               values (${campaignId}, ${organisationId}, ${created.userId}, ${`Bench ${i + 1}`}, ${agentId},
                       '+14155550100', '09:00', '17:00', 'UTC', 0, 'IN_PROGRESS', now())`;
      await tx`insert into campaign_contacts (id, campaign_id, organisation_id, phone, name)
               select substr(md5(random()::text || n), 1, 24), ${campaignId}, ${organisationId},
                      '+1415' || lpad((${i} * 100000 + n)::text, 7, '0'), 'Contact ' || n
                 from generate_series(1, ${workload.contactsPerOrganisation}) as n`;
    });
  }
}

async function measure(sql: Sql, openAt: number) {
  const [calls] = await sql<{ placed: number; twice: number; never: number; completed: number }[]>`
    select (select count(*)::int from call_records where campaign_id is not null) as placed,
           (select count(*)::int from (select phone_number from call_records where campaign_id is not null
                                        group by campaign_id, phone_number having count(*) > 1) d) as twice,
           (select count(*)::int from campaign_contacts cc where not exists
              (select 1 from call_records r where r.campaign_id = cc.campaign_id and r.phone_number = cc.phone)) as never,
           (select count(*)::int from campaign_contacts where status = 'COMPLETED') as completed`;
  const lag = await sql<{ ms: number }[]>`
    select (extract(epoch from created_at) * 1000)::float8 - ${openAt}::float8 as ms
      from call_records where campaign_id is not null order by 1`;
  const first = await sql<{ ms: number }[]>`
    select (extract(epoch from min(created_at)) * 1000)::float8 - ${openAt}::float8 as ms
      from call_records where campaign_id is not null group by campaign_id order by 1`;
  const states = await sql<{ status: string; paused_reason: string | null; n: number }[]>`
    select status, paused_reason, count(*)::int as n from campaigns group by 1, 2 order by 1`;
  const callLagMs = lag.map((r) => r.ms);
  const elapsedSeconds = Math.max(0.001, (callLagMs.at(-1) ?? 0) / 1000);
  return {
    callsPlaced: calls!.placed,
    calledTwice: calls!.twice,
    neverCalled: calls!.never,
    completed: calls!.completed,
    elapsedSeconds,
    dispatchRate: calls!.placed / elapsedSeconds,
    firstCallLagMs: first.map((r) => r.ms),
    callLagMs,
    campaignStates: states.map((r) => `${r.n} ${r.status}${r.paused_reason ? ` (${r.paused_reason})` : ''}`),
  };
}
