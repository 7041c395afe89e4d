/**
 * The line an outbound call goes over, and how many more calls it takes now (docs/architecture.md §12, §13): a
 * carrier number, with its own cap (phone_numbers.max_concurrent_calls, null: none), or an OUTBOUND SIP
 * configuration, with its maxConcurrentCalls. Chosen as placement.ts chooses it: the calling number when it is one of
 * the organisation's active carrier numbers, else the agent's OUTBOUND configuration (of that number, when named).
 *
 * The counts here are estimates read without a lock, for the campaign dialler to lease no more contacts than the
 * line can carry; each call is still counted exactly at its placement, under the line's row lock
 * (`assertNumberLineFree` here, `assertLineFree` in sip-calls.ts), in the transaction that records it.
 */
import { QUEUED_HOLDS_LINE_MS } from '../../billing/call-admission.ts';
import type { Queryable } from '../../db/database.ts';
import { ApiError } from '../../errors.ts';
import { countLive, findOutboundFor } from '../../sip/sip-repository.ts';
import { countLiveOnNumber, lockAndCountLiveOnNumber } from '../../telephony/number-line-repository.ts';
import { findActiveNumberByValue } from '../../telephony/phone-number-repository.ts';

export interface OutboundLine {
  kind: 'number' | 'sip';
  /** The phone_numbers or sip_configurations row. */
  id: string;
  organisationId: string;
  /** The caller number (E.164). */
  phoneNumber: string;
  /** Calls it may have live at once; null: no cap of its own. */
  limit: number | null;
}

/** The line an agent's call from `callingNumber` (else the agent's OUTBOUND configuration) would go over. */
export async function outboundLineOf(
  sql: Queryable,
  organisationId: string,
  agentId: string,
  callingNumber: string | null,
): Promise<OutboundLine | undefined> {
  const number = callingNumber ? await findActiveNumberByValue(sql, organisationId, callingNumber) : undefined;
  if (number)
    return {
      kind: 'number',
      id: number.id,
      organisationId,
      phoneNumber: number.phone_number,
      limit: number.max_concurrent_calls,
    };
  const sip = await findOutboundFor(sql, organisationId, agentId, callingNumber ?? undefined);
  return (
    sip && {
      kind: 'sip',
      id: sip.id,
      organisationId,
      phoneNumber: sip.phone_number,
      limit: sip.max_concurrent_calls,
    }
  );
}

/** How many more calls the line takes now, read without its lock (Infinity when it has no cap of its own). */
export async function freeOnLine(sql: Queryable, line: OutboundLine): Promise<number> {
  if (line.limit === null) return Number.POSITIVE_INFINITY;
  const live =
    line.kind === 'sip'
      ? await countLive(sql, line.id, QUEUED_HOLDS_LINE_MS)
      : await countLiveOnNumber(sql, line.organisationId, line.phoneNumber, QUEUED_HOLDS_LINE_MS);
  return Math.max(0, line.limit - live);
}

/**
 * 409 when the carrier number's own cap is full, counted under its row lock: call in the transaction that records
 * the call, after `admitCall` (the billing row is always locked first, so two placements never wait on each other
 * in opposite orders).
 */
export async function assertNumberLineFree(
  tx: Queryable,
  number: { id: string; organisationId: string; phoneNumber: string; limit: number | null },
): Promise<void> {
  if (number.limit === null) return;
  const live = await lockAndCountLiveOnNumber(tx, number, QUEUED_HOLDS_LINE_MS);
  if (live >= number.limit)
    throw new ApiError(
      'limit_reached',
      `All ${number.limit} lines of ${number.phoneNumber} are in use (its maxConcurrentCalls): wait for a call to ` +
        'end, or raise the limit (PUT /telephony/numbers/{id}/call-limit)',
    );
}
