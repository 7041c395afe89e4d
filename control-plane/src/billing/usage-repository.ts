/** The usage records (migration 010; spec document 1, Usage record). The only SQL for them. */
import type { Queryable } from '../db/database.ts';
import { newId } from '../db/ids.ts';
import type { WalletKind } from '../wallet/ledger-types.ts';

export type UsageType = 'VOICE_CALL' | 'RECORDING' | 'SMS' | 'CREDIT' | 'CHATBOT_MESSAGE' | 'NUMBER_RENTAL';
export const USAGE_TYPES: readonly UsageType[] = [
  'VOICE_CALL',
  'RECORDING',
  'SMS',
  'CREDIT',
  'CHATBOT_MESSAGE',
  'NUMBER_RENTAL',
];

export interface NewUsage {
  organisationId: string;
  voiceSessionId: string | null;
  roomName: string | null;
  callDirection: 'INBOUND' | 'OUTBOUND' | null;
  usageType: UsageType;
  durationSeconds: number;
  billedSeconds: number;
  messageCount: number;
  /** The price applied: minor units with 4 decimals (e4) per the rate line's unit. */
  rateE4: number;
  /** The charge: minor units e4, a whole number of the paying wallet's units. */
  totalE4: number;
  currency: string;
  wallet: WalletKind;
  startTime: Date | null;
  endTime: Date | null;
  /** One record per key, ever: the call id for a call, the message id for a reply. */
  idempotencyKey: string;
}

export interface UsageRecord extends NewUsage {
  id: string;
  billed: boolean;
  walletDeducted: boolean;
  transactionId: string | null;
  createdAt: Date;
}

interface UsageColumns {
  id: string;
  organisation_id: string;
  voice_session_id: string | null;
  room_name: string | null;
  call_direction: 'INBOUND' | 'OUTBOUND' | null;
  usage_type: UsageType;
  duration_seconds: number;
  billed_seconds: number;
  message_count: number;
  rate_e4: string;
  total_e4: string;
  currency: string;
  wallet: WalletKind;
  start_time: Date | null;
  end_time: Date | null;
  billed: boolean;
  wallet_deducted: boolean;
  transaction_id: string | null;
  idempotency_key: string;
  created_at: Date;
}

const toUsage = (row: UsageColumns): UsageRecord => ({
  id: row.id,
  organisationId: row.organisation_id,
  voiceSessionId: row.voice_session_id,
  roomName: row.room_name,
  callDirection: row.call_direction,
  usageType: row.usage_type,
  durationSeconds: row.duration_seconds,
  billedSeconds: row.billed_seconds,
  messageCount: row.message_count,
  rateE4: Number(row.rate_e4),
  totalE4: Number(row.total_e4),
  currency: row.currency,
  wallet: row.wallet,
  startTime: row.start_time,
  endTime: row.end_time,
  billed: row.billed,
  walletDeducted: row.wallet_deducted,
  transactionId: row.transaction_id,
  idempotencyKey: row.idempotency_key,
  createdAt: row.created_at,
});

/** Records `usage` once: undefined when its key was recorded before (the event delivered again). */
export async function insertUsage(tx: Queryable, usage: NewUsage): Promise<UsageRecord | undefined> {
  const [row] = await tx<UsageColumns[]>`
    insert into usage_records (id, organisation_id, voice_session_id, room_name, call_direction, usage_type,
                               duration_seconds, billed_seconds, message_count, rate_e4, total_e4, currency, wallet,
                               start_time, end_time, billed, idempotency_key)
    values (${newId()}, ${usage.organisationId}, ${usage.voiceSessionId}, ${usage.roomName}, ${usage.callDirection},
            ${usage.usageType}, ${usage.durationSeconds}, ${usage.billedSeconds}, ${usage.messageCount}, ${usage.rateE4},
            ${usage.totalE4}, ${usage.currency}, ${usage.wallet}, ${usage.startTime}, ${usage.endTime}, true,
            ${usage.idempotencyKey})
    on conflict (idempotency_key) do nothing
    returning *`;
  return row && toUsage(row);
}

/** Usage the wallet has not paid yet (it could not when metered), oldest first. */
export async function unpaidUsage(tx: Queryable, organisationId: string): Promise<UsageRecord[]> {
  const rows = await tx<UsageColumns[]>`
    select * from usage_records
     where organisation_id = ${organisationId} and not wallet_deducted and total_e4 > 0
     order by created_at, id`;
  return rows.map(toUsage);
}

export async function hasUnpaidUsage(sql: Queryable, organisationId: string): Promise<boolean> {
  const [row] = await sql<{ unpaid: boolean }[]>`
    select exists (select 1 from usage_records
                    where organisation_id = ${organisationId} and not wallet_deducted and total_e4 > 0) as unpaid`;
  return row!.unpaid;
}

export async function markUsagePaid(tx: Queryable, usageId: string, transactionId: string | null): Promise<void> {
  await tx`update usage_records set wallet_deducted = true, transaction_id = ${transactionId} where id = ${usageId}`;
}

export interface UsageTotals {
  usageType: UsageType;
  count: number;
  durationSeconds: number;
  totalE4: number;
}

/** Usage of one wallet and currency by type, within [from, to] of the records' creation when given. */
export async function summariseUsage(
  sql: Queryable,
  filter: { organisationId: string; wallet: WalletKind; currency: string; from?: Date; to?: Date },
): Promise<UsageTotals[]> {
  const rows = await sql<{ usage_type: UsageType; count: number; duration_seconds: string; total_e4: string }[]>`
    select usage_type, count(*)::int as count, coalesce(sum(duration_seconds), 0) as duration_seconds,
           coalesce(sum(total_e4), 0) as total_e4
      from usage_records
     where organisation_id = ${filter.organisationId} and wallet = ${filter.wallet} and currency = ${filter.currency}
       ${filter.from ? sql`and created_at >= ${filter.from}` : sql``}
       ${filter.to ? sql`and created_at <= ${filter.to}` : sql``}
     group by usage_type order by usage_type`;
  return rows.map((row) => ({
    usageType: row.usage_type,
    count: row.count,
    durationSeconds: Number(row.duration_seconds),
    totalE4: Number(row.total_e4),
  }));
}

export interface UsageFilter {
  organisationId: string;
  from?: Date;
  to?: Date;
  usageType?: UsageType;
  billed?: boolean;
  limit: number;
  offset: number;
}

/** One page of usage records, newest first, and how many match in all. */
export async function listUsage(
  sql: Queryable,
  filter: UsageFilter,
): Promise<{ records: UsageRecord[]; total: number }> {
  const where = sql`organisation_id = ${filter.organisationId}
    ${filter.from ? sql`and created_at >= ${filter.from}` : sql``}
    ${filter.to ? sql`and created_at <= ${filter.to}` : sql``}
    ${filter.usageType ? sql`and usage_type = ${filter.usageType}` : sql``}
    ${filter.billed === undefined ? sql`` : sql`and billed = ${filter.billed}`}`;
  const rows = await sql<UsageColumns[]>`
    select * from usage_records where ${where} order by created_at desc, id desc
     limit ${filter.limit} offset ${filter.offset}`;
  const [count] = await sql<{ total: number }[]>`select count(*)::int as total from usage_records where ${where}`;
  return { records: rows.map(toUsage), total: count!.total };
}
