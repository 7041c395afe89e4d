/**
 * Bringing Parley's numbers in line with a carrier account (connect and sync, spec document 2): every page is read
 * before anything is written; new numbers are imported, present ones refreshed, and numbers gone from the account
 * deactivated — but only when the whole account was read. A read that failed part-way imports and refreshes what
 * it saw and deactivates nothing, since a number missing from a partial read may simply be on the unread pages.
 */
import type { Queryable } from '../db/database.ts';
import { newId } from '../db/ids.ts';
import { CarrierError, type Carrier, type RemoteNumber } from './carrier.ts';
import {
  carrierColumns,
  deactivateUnlisted,
  insertNumbers,
  lockNumbersByValue,
  refreshNumber,
  type PhoneNumberRow,
  type RoutingStatus,
  type UnassignedStatus,
} from './phone-number-repository.ts';

/** What a carrier read produced. */
export interface RemoteRead {
  /** Every number read, each once. */
  numbers: RemoteNumber[];
  /** Whether every page was read: only then may numbers missing from it be deactivated. */
  complete: boolean;
  /** Pages read successfully. */
  pages: number;
  /** Why the read stopped early, when it did. */
  failure?: CarrierError;
}

/**
 * Reads every page. A failure on the first page is thrown (nothing was read: the caller answers with the carrier's
 * error); a failure on a later page ends the read incomplete, keeping what the earlier pages gave.
 */
export async function readEveryPage(pages: AsyncIterable<RemoteNumber[]>): Promise<RemoteRead> {
  const byNumber = new Map<string, RemoteNumber>();
  let read = 0;
  try {
    for await (const page of pages) {
      read += 1;
      for (const number of page) byNumber.set(number.phoneNumber, number);
    }
  } catch (error) {
    if (read === 0 || !(error instanceof CarrierError)) throw error;
    return { numbers: [...byNumber.values()], complete: false, pages: read, failure: error };
  }
  return { numbers: [...byNumber.values()], complete: true, pages: read };
}

export interface ReconcileInput {
  organisationId: string;
  provider: Carrier;
  integrationId: string;
  read: RemoteRead;
  /**
   * Database time the read began, to the microsecond (Change.startedAtExact). Numbers touched since (bought,
   * assigned) were not necessarily in the read, so none of them is deactivated by it.
   */
  readStartedAt: string;
  /** metadata.source of numbers imported: 'import' for connect and sync. */
  source?: string;
}

export interface ReconcileCounts {
  /** Numbers on the account as read. */
  remoteCount: number;
  /** Numbers new to Parley, or active again. */
  imported: number;
  /** Active numbers refreshed. */
  updated: number;
  /** Numbers imported or refreshed that answer through another application (routingStatus NEEDS_SETUP). */
  needsSetup: number;
  /** Numbers on the account that the organisation has active on another carrier: left alone. */
  skippedOtherProvider: number;
  /** Numbers deactivated because the account no longer has them. */
  deactivated: number;
}

/** Applies a read to the organisation's numbers; run inside the change's commit. */
export async function reconcile(sql: Queryable, input: ReconcileInput): Promise<ReconcileCounts> {
  const { organisationId, provider, integrationId, read } = input;
  const source = input.source ?? 'import';
  const counts: ReconcileCounts = {
    remoteCount: read.numbers.length,
    imported: 0,
    updated: 0,
    needsSetup: 0,
    skippedOtherProvider: 0,
    deactivated: 0,
  };
  const phoneNumbers = read.numbers.map((n) => n.phoneNumber);
  const existing = new Map(
    (await lockNumbersByValue(sql, organisationId, phoneNumbers)).map((row) => [row.phone_number, row]),
  );
  const inserts: Record<string, unknown>[] = [];
  for (const remote of read.numbers) {
    const row = existing.get(remote.phoneNumber);
    if (row && row.status === 'ACTIVE' && row.provider !== provider) {
      counts.skippedOtherProvider += 1;
      continue;
    }
    const columns = carrierColumns(remote, (row?.metadata?.source as string | undefined) ?? source);
    const active = row?.status === 'ACTIVE';
    const unassigned = unassignedStatus(remote, active ? row : undefined);
    const routing: RoutingStatus = active && row.agent_id ? 'ASSIGNED' : unassigned;
    if (routing === 'NEEDS_SETUP') counts.needsSetup += 1;
    if (!row) {
      inserts.push({
        id: newId(),
        organisation_id: organisationId,
        integration_id: integrationId,
        provider,
        phone_number: remote.phoneNumber,
        ...columns,
        status: 'ACTIVE',
        routing_status: routing,
        unassigned_routing_status: unassigned,
        last_synced_at: new Date(),
      });
      counts.imported += 1;
      continue;
    }
    await refreshNumber(sql, row.id, {
      integrationId,
      provider,
      remote,
      columns,
      routingStatus: routing,
      unassignedRoutingStatus: unassigned,
      agentId: active ? row.agent_id : null,
    });
    if (active) counts.updated += 1;
    else counts.imported += 1;
  }
  await insertNumbers(sql, inserts);
  if (read.complete) {
    counts.deactivated = await deactivateUnlisted(sql, {
      organisationId,
      integrationId,
      listed: phoneNumbers,
      readStartedAt: input.readStartedAt,
    });
  }
  return counts;
}

/**
 * The status a number has while unassigned, from how the carrier routes it: answering through another application
 * is NEEDS_SETUP (left alone until assigned); a number bought through Parley stays PURCHASED; otherwise READY.
 */
function unassignedStatus(remote: RemoteNumber, row: PhoneNumberRow | undefined): UnassignedStatus {
  if (remote.inbound === 'elsewhere') return 'NEEDS_SETUP';
  const before = row ? (row.routing_status === 'ASSIGNED' ? row.unassigned_routing_status : row.routing_status) : null;
  return before === 'PURCHASED' ? 'PURCHASED' : 'READY';
}
