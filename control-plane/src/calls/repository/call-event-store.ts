/**
 * What each call event changes in Postgres (docs/architecture.md §3 step 6). Every event is applied in one transaction that
 * first records its key in call_events: a key already there means the event was applied before (a redelivery, or the
 * engine publishing it twice), and nothing else is done. Events of one call serialise on the call's row lock.
 *
 * Status moves only forward (a late `connecting` never undoes IN_PROGRESS, nothing reopens an ended call); the
 * engine's `ended` is authoritative for the final status, outcome, duration and latency, while the first end
 * (the engine's, the end route's or the sweeper's) keeps its endedAt and metaData.endReason — except a carrier's bare
 * `carrier_completed`, which the engine's reason replaces. The `ended` event meters
 * the call (billing/metering.ts) in the same transaction, unless an earlier end did.
 *
 * Times come from the event (docs/architecture.md §18): answeredAt and endedAt are when the engine or the gateway saw
 * it happen (`atEpochMs`), not when the event was stored — a control plane that was down while calls ended writes
 * their real ends. An event's time is kept between the record's creation and now (a clock far off cannot put an
 * end in the future or before the call existed); an event without one (an older engine) is timed when stored.
 */
import { createHash } from 'node:crypto';
import type { CallEvent, CallState, SipLegStatus } from '@parley/engine/protocol';
import type { Queryable, Sql } from '../../db/database.ts';
import { newId } from '../../db/ids.ts';
import { withAction } from './call-actions.ts';
import type { ActionItem, AgentResult, CallActions, CallStatus } from './call-records.ts';
import { finishCall, json, queueAnalysis } from './call-repository.ts';
import { meterCall, meterRecording } from '../../billing/metering.ts';

/** The engine's `ended` reason for a call whose media never reached it (engine/src/roles/engine-role.ts). */
const MEDIA_NEVER_CONNECTED = 'media_never_connected';
/**
 * A carrier's end reason that says only that the call ended normally (carriers/<carrier>/voice.ts). The engine hanging
 * up its stream makes the carrier report it, often before the engine's own `ended` is stored: the engine's reason
 * (e.g. `stt_unavailable`) is the one that says why, so it replaces this one.
 */
const CARRIER_COMPLETED = 'carrier_completed';

export type PersistOutcome = 'applied' | 'duplicate' | 'unknown_call';

/** Order of statuses: a call only ever moves to a higher rank. */
const STATUS_RANK: Record<CallStatus, number> = {
  SCHEDULED: 1,
  QUEUED: 1,
  INITIATED: 2,
  RINGING: 3,
  IN_PROGRESS: 4,
  COMPLETED: 9,
  FAILED: 9,
  CANCELLED: 9,
};

/** The callStatus an engine state means; undefined for states that change no status (`ended` waits for its event). */
const STATUS_OF_STATE: Partial<Record<CallState, CallStatus>> = {
  connecting: 'RINGING',
  greeting: 'IN_PROGRESS',
  listening: 'IN_PROGRESS',
  thinking: 'IN_PROGRESS',
  speaking: 'IN_PROGRESS',
  ending: 'IN_PROGRESS',
};

/** The event's identity: SHA-256 of its JSON with keys sorted, so the same event always has the same key. */
export function eventKey(event: CallEvent): string {
  return createHash('sha256').update(canonicalJson(event)).digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

interface LockedCall {
  id: string;
  organisation_id: string;
  call_status: CallStatus | null;
  ended_at: Date | null;
  actions: CallActions | null;
}

/** Applies one event of one call, once. */
export async function persistCallEvent(sql: Sql, callId: string, event: CallEvent): Promise<PersistOutcome> {
  const key = eventKey(event);
  return sql.begin(async (tx) => {
    const [call] = await tx<LockedCall[]>`
      select id, organisation_id, call_status, ended_at, actions from call_records where id = ${callId} for update`;
    if (!call) return 'unknown_call';
    const recorded = await tx`insert into call_events (id, organisation_id, call_id, event_key, type, payload)
      values (${newId()}, ${call.organisation_id}, ${callId}, ${key}, ${event.type}, ${json(tx, event)})
      on conflict (call_id, event_key) do nothing returning id`;
    if (recorded.length === 0) return 'duplicate';
    await apply(tx, call, event);
    await tx`update call_records set last_event_at = now(), updated_at = now() where id = ${callId}`;
    return 'applied';
  }) as Promise<PersistOutcome>;
}

async function apply(tx: Queryable, call: LockedCall, event: CallEvent): Promise<void> {
  switch (event.type) {
    case 'state':
      return applyState(tx, call, event.state, event.atEpochMs);
    case 'transcript':
      await tx`insert into call_transcripts (id, organisation_id, call_id, speaker, text, start_ms, end_ms, interrupted)
        values (${newId()}, ${call.organisation_id}, ${call.id}, ${event.speaker}, ${event.text},
                ${Math.round(event.startMs)}, ${Math.round(event.endMs)}, ${event.interrupted ?? false})`;
      return;
    case 'tool_call':
      return addAction(tx, call, {
        type: 'tool_call',
        name: event.name,
        ok: event.ok,
        durationMs: Math.round(event.durationMs),
        atMs: Math.round(event.atMs),
      });
    case 'dtmf':
      return addAction(tx, call, { type: 'dtmf', digit: event.digit, atMs: Math.round(event.atMs) });
    case 'result': {
      const result: AgentResult = {
        outcomeKey: event.outcomeKey,
        outcomeLabel: event.outcomeLabel,
        captured: event.captured,
        resultSource: 'flow',
        flowPath: event.flowPath,
        decidedAt: new Date().toISOString(),
      };
      await tx`update call_records set agent_result = ${json(tx, result)} where id = ${call.id}`;
      return;
    }
    case 'recording':
      // recordingUrl is the relative path of the recording endpoint (spec document 1), which serves recording_path.
      await tx`update call_records set recording_path = ${event.path}, recording_url = ${`/voice-sessions/${call.id}/recording`} where id = ${call.id}`;
      await meterRecording(tx, call.id);
      return;
    case 'ended':
      return applyEnded(tx, call, event);
    case 'telephony':
      return applyTelephony(tx, call, event);
  }
}

/** The outcome of a SIP leg that ended before anyone spoke (spec document 2's outcome classes). */
const OUTCOME_OF_LEG: Partial<Record<SipLegStatus, string>> = {
  busy: 'busy',
  no_answer: 'no_answer',
  rejected: 'rejected',
  failed: 'failed',
  // The leg was cancelled before answer (by Parley's hang-up, or the caller hung up while it rang).
  cancelled: 'no_answer',
};

/**
 * The SIP gateway's report of the phone leg (docs/architecture.md §12): ringing → RINGING, answered → IN_PROGRESS
 * with answeredAt; a leg that ended unanswered (busy, no answer, rejected, failed, cancelled) ends the call FAILED
 * with that outcome; completed or transferred ends it if the engine's `ended` has not. An end here meters the
 * call like any other end (nothing for an unanswered one).
 */
async function applyTelephony(
  tx: Queryable,
  call: LockedCall,
  event: Extract<CallEvent, { type: 'telephony' }>,
): Promise<void> {
  if (event.status === 'ringing') return applyState(tx, call, 'connecting', event.atEpochMs);
  if (event.status === 'answered') return applyState(tx, call, 'greeting', event.atEpochMs);
  const detail = event.sipStatus ? `SIP ${event.sipStatus}${event.reason ? ` ${event.reason}` : ''}` : event.reason;
  const unanswered = OUTCOME_OF_LEG[event.status];
  const [answered] = await tx<{ at: Date | null }[]>`select answered_at as at from call_records where id = ${call.id}`;
  const wasAnswered = answered?.at != null;
  // Unanswered, or a leg that failed even after answer (media lost): FAILED. Otherwise the conversation took place.
  const failed = event.status === 'failed' || (unanswered !== undefined && !wasAnswered);
  const done = await finishCall(tx, call.id, {
    status: failed || !wasAnswered ? 'FAILED' : 'COMPLETED',
    outcome: failed ? (unanswered ?? 'failed') : wasAnswered ? 'completed' : 'no_answer',
    outcomeDetail: detail ?? null,
    reason: event.status === 'transferred' ? 'transferred' : `sip_${event.status}`,
    analyse: wasAnswered,
    endedAt: await eventTime(tx, call.id, event.atEpochMs),
  });
  // Billed with the end that applied it: once, whichever end came first (an unanswered leg bills nothing).
  if (done) await meterCall(tx, call.id);
}

/**
 * When an event says it happened (epoch ms), kept between the call's creation and now; now when it says nothing.
 */
async function eventTime(tx: Queryable, callId: string, atEpochMs: number | undefined): Promise<Date> {
  const at = atEpochMs === undefined || !Number.isFinite(atEpochMs) ? null : new Date(atEpochMs);
  const [row] = await tx<{ at: Date }[]>`
    select greatest(created_at, least(now(), coalesce(${at}::timestamptz, now()))) as at
      from call_records where id = ${callId}`;
  return row?.at ?? new Date();
}

async function applyState(
  tx: Queryable,
  call: LockedCall,
  state: CallState,
  atEpochMs: number | undefined,
): Promise<void> {
  const next = STATUS_OF_STATE[state];
  if (!next) return;
  if (call.ended_at) {
    // Another instance applied the end first: the call is over, but that it was answered still counts.
    if (next === 'IN_PROGRESS') {
      const at = await eventTime(tx, call.id, atEpochMs);
      await tx`update call_records set answered_at = least(${at}::timestamptz, ended_at) where id = ${call.id} and answered_at is null`;
    }
    return;
  }
  const rank = call.call_status ? STATUS_RANK[call.call_status] : 0;
  if (STATUS_RANK[next] <= rank) return;
  if (next === 'IN_PROGRESS') {
    const at = await eventTime(tx, call.id, atEpochMs);
    await tx`update call_records set call_status = ${next}, answered_at = coalesce(answered_at, ${at}::timestamptz) where id = ${call.id}`;
  } else {
    await tx`update call_records set call_status = ${next} where id = ${call.id}`;
  }
}

async function addAction(tx: Queryable, call: LockedCall, item: ActionItem): Promise<void> {
  await tx`update call_records set actions = ${json(tx, withAction(call.actions, item))} where id = ${call.id}`;
}

async function applyEnded(
  tx: Queryable,
  call: LockedCall,
  event: Extract<CallEvent, { type: 'ended' }>,
): Promise<void> {
  // A session that never ran (its media never came) knows less than the end already applied — a busy or
  // unanswered leg the carrier or the SIP gateway reported: that end stays as it is.
  if (call.ended_at && event.reason === MEDIA_NEVER_CONNECTED) return;
  const status: CallStatus = event.outcome === 'failed' ? 'FAILED' : 'COMPLETED';
  const endedAt = await eventTime(tx, call.id, event.atEpochMs);
  await tx`update call_records set
      call_status = ${status},
      call_outcome = ${event.outcome},
      call_duration = ${Math.max(0, Math.round(event.durationMs))},
      latency = ${json(tx, event.latency)},
      ended_at = coalesce(ended_at, ${endedAt}::timestamptz),
      meta_data = case when meta_data ? 'endReason' and meta_data ->> 'endReason' <> ${CARRIER_COMPLETED} then meta_data
                       else meta_data || jsonb_build_object('endReason', ${event.reason}::text) end
    where id = ${call.id}`;
  await queueAnalysis(tx, call.id, call.organisation_id);
  // Billed with the end that applies it: once, whichever end (this, the sweeper's, the end route's) came first.
  await meterCall(tx, call.id, { engineDurationMs: event.durationMs });
}
