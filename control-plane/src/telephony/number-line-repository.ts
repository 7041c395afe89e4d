/**
 * A carrier number's live calls, against its own cap (phone_numbers.max_concurrent_calls, docs/architecture.md
 * §13). Calls on the number either way count: an outbound call's calling_number is the number it dials from, an
 * inbound call's the number it came in on. Calls over a SIP configuration are counted by the configuration
 * (sip/sip-repository.ts), never here.
 */
import type { Queryable } from '../db/database.ts';

/** The live calls of `organisationId` on `phoneNumber`; a QUEUED call holds its line while younger than `queuedWithinMs`. */
export async function countLiveOnNumber(
  sql: Queryable,
  organisationId: string,
  phoneNumber: string,
  queuedWithinMs: number,
): Promise<number> {
  const [row] = await sql<{ live: number }[]>`
    select count(*)::int as live from call_records
     where organisation_id = ${organisationId} and ended_at is null
       and call_status in ('QUEUED', 'INITIATED', 'RINGING', 'IN_PROGRESS')
       and calling_number = ${phoneNumber} and sip_configuration_id is null
       and (call_status <> 'QUEUED' or created_at > now() - make_interval(secs => ${queuedWithinMs / 1000}))`;
  return row!.live;
}

/**
 * Locks the number's row for the caller's transaction, then counts its live calls: placements from one number, on
 * any instance, are counted one after another (as the organisation's billing row serialises the plan's count).
 */
export async function lockAndCountLiveOnNumber(
  tx: Queryable,
  number: { id: string; organisationId: string; phoneNumber: string },
  queuedWithinMs: number,
): Promise<number> {
  await tx`select id from phone_numbers where id = ${number.id} for update`;
  return countLiveOnNumber(tx, number.organisationId, number.phoneNumber, queuedWithinMs);
}
