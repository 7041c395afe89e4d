/**
 * The call record's life in SQL, for every part of the control plane that makes or moves calls: POST /voice-sessions,
 * call placement (POST /voice/session, callbacks, carrier webhooks, the scheduler), the event persister and the
 * sweeper. Each function takes a Queryable so a caller can run it inside its own transaction.
 *
 *   create      → a record (callStatus null, or SCHEDULED/QUEUED); the agent's totalCalls and lastUsed move with it
 *   dispatched  → INITIATED: an engine accepted the call
 *   answered    → IN_PROGRESS: the far end picked up
 *   finish      → COMPLETED / FAILED / CANCELLED, once: endedAt, callDuration, outcome, metaData.endReason, and the
 *                 post-call analysis queued
 */
import { fillTemplate } from '@parley/engine/protocol';
import type { Queryable, Sql } from '../../db/database.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { newId } from '../../db/ids.ts';
import { ApiError, notFound } from '../../errors.ts';
import {
  LIVE_STATUSES,
  type CallDirection,
  type CallRow,
  type CallSource,
  type CallStatus,
  type CallType,
} from './call-records.ts';

/**
 * Wait between a call's end and its analysis, s: the engine's last transcript lines and the flow result may still be
 * on their way (another control-plane instance may be writing them), and the spec allows "a minute or two".
 */
export const ANALYSIS_START_DELAY_SECONDS = 10;

export const json = (sql: Queryable, value: unknown) => (sql as Sql).json(value as never);

/** The agent of a new call, when the caller has it loaded already (its name and greeting go on the record). */
export interface LoadedAgent {
  id: string;
  name: string;
  greetingMessage: string | null;
  customVariables: Record<string, unknown>;
}

interface NewCallFields {
  /** Default: a new id. Placement may choose it first, e.g. to name the engine's call. */
  id?: string;
  organisationId: string;
  /** Unique; a taken one is a 409. */
  roomName: string;
  /** Stored as given here; POST /voice-sessions capitalises it (capitaliseName) as the spec says. */
  participantName: string;
  phoneNumber?: string | null;
  createdById?: string | null;
  callType: CallType;
  callDirection: CallDirection;
  campaignId?: string | null;
  customVariables?: Record<string, unknown>;
  metaData?: Record<string, unknown>;
  /** OUTBOUND: the caller number; INBOUND: the organisation's number that was called (results' `line:` use case). */
  callingNumber?: string | null;
  scheduledTime?: Date | null;
  scheduledStatus?: string | null;
  /** null: a record only; SCHEDULED or QUEUED: to be placed. Later states come from dispatched/answered/finish. */
  status?: Extract<CallStatus, 'SCHEDULED' | 'QUEUED'> | null;
  source: CallSource;
  /** The client's label (POST /voice/session `useCase`): the results' `use:<name>` use case. */
  useCase?: string | null;
  /** The engine's maximum duration for the call, ms (CallSpec.limits.maxDurationMs): the sweeper's limit. */
  maxDurationMs?: number | null;
  /** The call's own webhook tools, bearer tokens sealed (used instead of the agent's when a scheduled call starts). */
  functionTools?: unknown;
  /** The SIP configuration the call goes over (its maxConcurrentCalls counts it; the SIP gateway holds its leg). */
  sipConfigurationId?: string | null;
}

/** A new call names its agent by id (read here), or hands over the agent it loaded (not read again). */
export type NewCall = NewCallFields &
  ({ agentId: string; agent?: undefined } | { agent: LoadedAgent; agentId?: undefined });

interface AgentForCall {
  name: string;
  greeting_message: string | null;
  custom_variables: Record<string, unknown>;
}

async function agentForCall(sql: Queryable, call: NewCall): Promise<AgentForCall & { id: string }> {
  if (call.agent) {
    const { id, name, greetingMessage, customVariables } = call.agent;
    return { id, name, greeting_message: greetingMessage, custom_variables: customVariables };
  }
  const [agent] = await sql<AgentForCall[]>`select name, greeting_message, custom_variables from agents
    where id = ${call.agentId} and organisation_id = ${call.organisationId} and deleted_at is null`;
  if (!agent) throw notFound('Agent');
  return { ...agent, id: call.agentId };
}

/**
 * Creates a call record of a live agent of the organisation: agentName and greetingMessage are taken from the agent
 * (the greeting's placeholders filled from the agent's variables overlaid with the call's), then the agent's
 * totalCalls and lastUsed move. 404 for an unknown or deleted agent, 409 for a taken roomName (nothing changed).
 */
export async function createCall(sql: Queryable, call: NewCall): Promise<string> {
  const id = call.id ?? newId();
  const agent = await agentForCall(sql, call);
  const variables = { ...agent.custom_variables, ...call.customVariables };
  const greeting = agent.greeting_message ? fillTemplate(agent.greeting_message, variables) : null;
  try {
    await sql`insert into call_records ${(sql as Sql)({
      id,
      organisation_id: call.organisationId,
      agent_id: agent.id,
      room_name: call.roomName,
      campaign_id: call.campaignId ?? null,
      participant_name: call.participantName,
      phone_number: call.phoneNumber ?? null,
      created_by_id: call.createdById ?? null,
      custom_variables: json(sql, call.customVariables ?? {}),
      scheduled_time: call.scheduledTime ?? null,
      scheduled_status: call.scheduledStatus ?? null,
      calling_number: call.callingNumber ?? null,
      meta_data: json(sql, call.metaData ?? {}),
      call_type: call.callType,
      call_direction: call.callDirection,
      call_status: call.status ?? null,
      agent_name: agent.name,
      greeting_message: greeting,
      source: call.source,
      use_case: call.useCase ?? null,
      max_duration_ms: call.maxDurationMs ?? null,
      function_tools: call.functionTools === undefined ? null : json(sql, call.functionTools),
      sip_configuration_id: call.sipConfigurationId ?? null,
    } as never)}`;
  } catch (error) {
    if (isUniqueViolation(error))
      throw new ApiError('conflict', `A call with roomName "${call.roomName}" already exists`, { cause: error });
    throw error;
  }
  // Counted only once the record exists: a refused one (a taken roomName) leaves the agent's count alone.
  await sql`update agents set total_calls = total_calls + 1, last_used = now() where id = ${agent.id}`;
  return id;
}

/** An engine accepted the call: INITIATED. False when the call had already moved on (or ended). */
export async function markDispatched(
  sql: Queryable,
  callId: string,
  dispatch: { engineId: string; maxDurationMs?: number },
): Promise<boolean> {
  const rows = await sql`update call_records
       set call_status = 'INITIATED', dispatched_at = coalesce(dispatched_at, now()), engine_id = ${dispatch.engineId},
           max_duration_ms = coalesce(${dispatch.maxDurationMs ?? null}::integer, max_duration_ms),
           last_event_at = now(), updated_at = now()
     where id = ${callId} and ended_at is null and (call_status is null or call_status in ('SCHEDULED', 'QUEUED'))
    returning id`;
  return rows.length > 0;
}

/** The far end picked up: IN_PROGRESS, answeredAt. False when the call had already ended (or was answered). */
export async function markAnswered(sql: Queryable, callId: string): Promise<boolean> {
  const rows = await sql`update call_records
       set call_status = 'IN_PROGRESS', answered_at = coalesce(answered_at, now()), last_event_at = now(), updated_at = now()
     where id = ${callId} and ended_at is null
       and (call_status is null or call_status in ('SCHEDULED', 'QUEUED', 'INITIATED', 'RINGING'))
    returning id`;
  return rows.length > 0;
}

export interface CallEnd {
  /** Default COMPLETED; FAILED when outcome is `failed`. */
  status?: Extract<CallStatus, 'COMPLETED' | 'FAILED' | 'CANCELLED'>;
  /** completed, no_answer, busy, rejected, voicemail, failed; kept when the call already has one. */
  outcome?: string | null;
  outcomeDetail?: string | null;
  /** Stored in metaData.endReason unless a reason is already there. */
  reason?: string | null;
  /** When it ended; default now. */
  endedAt?: Date;
  /**
   * callDuration, ms. Default: from when it was answered (else created) to endedAt, as the spec's end route measures
   * it ("time since creation") for a record that was never answered.
   */
  durationMs?: number;
  /** Queue the post-call analysis; default true (CANCELLED calls never are). */
  analyse?: boolean;
}

export interface FinishedCall {
  row: CallRow;
  /** The call was live (an engine was, or may still be, running it): tell the engine to hang up. */
  wasLive: boolean;
}

/**
 * Ends a call once: the first caller sets endedAt and the rest; a call that has already ended is left as it is and
 * `undefined` returned. The row is locked for the change, so the engine's `ended`, the end route and the sweeper
 * never both finish it.
 */
export async function finishCall(sql: Queryable, callId: string, end: CallEnd): Promise<FinishedCall | undefined> {
  // The row lock must be held until the analysis job is queued: a job's insert takes KEY SHARE on the call's row for
  // its foreign key, and the event persister locks that row FOR UPDATE before queuing the same job — run statement by
  // statement, the two deadlock. Given the pool, take a transaction; given one, the caller's is used.
  if (isPool(sql)) return sql.begin((tx) => finishLockedCall(tx, callId, end)) as Promise<FinishedCall | undefined>;
  return finishLockedCall(sql, callId, end);
}

function isPool(sql: Queryable): sql is Sql {
  return typeof (sql as Partial<Sql>).begin === 'function';
}

async function finishLockedCall(sql: Queryable, callId: string, end: CallEnd): Promise<FinishedCall | undefined> {
  const [before] = await sql<{ call_status: CallStatus | null; ended_at: Date | null; organisation_id: string }[]>`
    select call_status, ended_at, organisation_id from call_records where id = ${callId} for update`;
  if (!before || before.ended_at) return undefined;
  const status = end.status ?? (end.outcome === 'failed' ? 'FAILED' : 'COMPLETED');
  const endedAt = end.endedAt ?? new Date();
  const [row] = await sql<CallRow[]>`update call_records set
       call_status = ${status},
       ended_at = ${endedAt},
       call_duration = ${end.durationMs === undefined ? null : Math.max(0, Math.round(end.durationMs))}::integer,
       call_outcome = coalesce(call_outcome, ${end.outcome ?? null}),
       call_outcome_detail = coalesce(${end.outcomeDetail ?? null}, call_outcome_detail),
       meta_data = case when ${end.reason ?? null}::text is null or meta_data ? 'endReason' then meta_data
                        else meta_data || jsonb_build_object('endReason', ${end.reason ?? null}::text) end,
       updated_at = now()
     where id = ${callId}
    returning *`;
  let finished: CallRow | undefined = row;
  if (end.durationMs === undefined) {
    [finished] = await sql<CallRow[]>`update call_records
         set call_duration = greatest(0, round(extract(epoch from (ended_at - coalesce(answered_at, created_at))) * 1000))::integer
       where id = ${callId} returning *`;
  }
  if (end.analyse !== false && status !== 'CANCELLED') {
    await queueAnalysis(sql, callId, before.organisation_id);
    finished!.analysis_status ??= 'pending';
  }
  return { row: finished!, wasLive: before.call_status !== null && LIVE_STATUSES.includes(before.call_status) };
}

/**
 * Queues the call's post-call analysis to start after ANALYSIS_START_DELAY_SECONDS. Idempotent: one job per call; a
 * job still waiting is pushed back so late events land first, a finished one is left alone.
 */
export async function queueAnalysis(
  sql: Queryable,
  callId: string,
  organisationId: string,
  delaySeconds = ANALYSIS_START_DELAY_SECONDS,
): Promise<void> {
  await sql`insert into call_analysis_jobs (id, organisation_id, call_id, next_attempt_at)
            values (${newId()}, ${organisationId}, ${callId}, now() + make_interval(secs => ${delaySeconds}))
            on conflict (call_id) do update
              set next_attempt_at = greatest(call_analysis_jobs.next_attempt_at, excluded.next_attempt_at)
              where call_analysis_jobs.status = 'pending' and call_analysis_jobs.lease_token is null`;
  await sql`update call_records set analysis_status = 'pending' where id = ${callId} and analysis_status is null`;
}

export async function findCallById(sql: Queryable, organisationId: string, id: string): Promise<CallRow | undefined> {
  const [row] = await sql<
    CallRow[]
  >`select * from call_records where id = ${id} and organisation_id = ${organisationId}`;
  return row;
}

export async function findCallByRoom(
  sql: Queryable,
  organisationId: string,
  roomName: string,
): Promise<CallRow | undefined> {
  const [row] = await sql<
    CallRow[]
  >`select * from call_records where room_name = ${roomName} and organisation_id = ${organisationId}`;
  return row;
}
