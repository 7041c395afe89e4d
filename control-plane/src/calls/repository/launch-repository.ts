/**
 * The call record as the launch of a call reads and moves it (calls/launch/): finding a call by the ids the
 * carriers' webhooks carry, the duplicate-request window, the carrier's reference and transfer target in metaData,
 * and the one-use stream URL of an outbound call, kept from dispatch until the carrier's answer request takes it.
 */
import { lockForTransaction, type Queryable, type Sql } from '../../db/database.ts';
import { isId } from '../../db/ids.ts';
import type { CallRow } from './call-records.ts';

/** metaData key of the carrier's own id of the call (CallUUID, CallSid): shown to clients, read by webhooks. */
export const META_CARRIER_CALL = 'carrierCallSid';
/** metaData key of the number a transferred call is moved to (carrier-a fetches the dial document later). */
export const META_TRANSFER_TO = 'transferTo';

/** A call by id, whatever its organisation (webhooks and jobs name calls by id only). */
export async function findCall(sql: Queryable, callId: string): Promise<CallRow | undefined> {
  if (!isId(callId)) return undefined;
  const [row] = await sql<CallRow[]>`select * from call_records where id = ${callId}`;
  return row;
}

/** A call by room name, whatever its organisation: the caller checks the organisation (a 403, not a 404). */
export async function findCallByRoomName(sql: Queryable, roomName: string): Promise<CallRow | undefined> {
  const [row] = await sql<CallRow[]>`select * from call_records where room_name = ${roomName}`;
  return row;
}

/** The call the carrier knows as `callRef`, the newest should ids repeat across accounts. */
export async function findCallByCarrierRef(
  sql: Queryable,
  carrier: string,
  callRef: string,
): Promise<CallRow | undefined> {
  const [row] = await sql<CallRow[]>`select * from call_records
    where meta_data ->> ${META_CARRIER_CALL} = ${callRef} and meta_data ->> 'carrier' = ${carrier}
    order by created_at desc limit 1`;
  return row;
}

export interface DuplicateKey {
  agentId: string;
  participantNumber: string;
  userId: string;
  windowMs: number;
}

/**
 * Whether the same agent, number and key owner asked for a call within the window (a failed call does not count).
 * Holds a transaction-scoped lock on that key, so the check and the caller's insert in the same transaction cannot
 * interleave with another request's.
 */
export async function hasRecentDuplicate(tx: Queryable, key: DuplicateKey): Promise<boolean> {
  await lockForTransaction(tx, `placement:${key.agentId}:${key.participantNumber}:${key.userId}`);
  const [recent] = await tx`select id from call_records
    where agent_id = ${key.agentId} and phone_number = ${key.participantNumber} and created_by_id = ${key.userId}
      and created_at > now() - make_interval(secs => ${key.windowMs / 1000})
      and (call_status is null or call_status <> 'FAILED')
    limit 1`;
  return recent !== undefined;
}

/** A scheduled call whose time has come takes a line: SCHEDULED → QUEUED (billing/call-admission.ts counts it). */
export async function queueScheduledCall(tx: Queryable, callId: string): Promise<void> {
  await tx`update call_records set call_status = 'QUEUED', updated_at = now()
            where id = ${callId} and call_status = 'SCHEDULED' and ended_at is null`;
}

/** Adds `values` to the call's metaData (existing keys replaced). */
export async function mergeCallMeta(sql: Queryable, callId: string, values: Record<string, unknown>): Promise<void> {
  await sql`update call_records set meta_data = meta_data || ${(sql as Sql).json(values as never)}, updated_at = now()
            where id = ${callId}`;
}

/** Keeps the engine's one-use stream URL of an outbound call until the carrier's answer request takes it. */
export async function keepStreamUrl(sql: Queryable, callId: string, url: string): Promise<void> {
  await sql`update call_records set media_stream_url = ${url}, updated_at = now() where id = ${callId}`;
}

/**
 * Takes the kept stream URL once: the first answer request gets it, any later one (a carrier's retry) gets nothing,
 * and so does a call that has ended. The carrier's id of the call, when the answer gives one, is recorded with it.
 */
export async function takeStreamUrl(
  sql: Queryable,
  callId: string,
  callRef: string | undefined,
): Promise<string | undefined> {
  const [taken] = await sql<{ url: string }[]>`
    with kept as (select media_stream_url as url from call_records
                   where id = ${callId} and ended_at is null and media_stream_url is not null for update)
    update call_records c set
        media_stream_url = null,
        meta_data = case when ${callRef ?? null}::text is null then c.meta_data
                         else c.meta_data || jsonb_build_object(${META_CARRIER_CALL}::text, ${callRef ?? null}::text) end,
        updated_at = now()
      from kept where c.id = ${callId}
    returning kept.url`;
  return taken?.url;
}
