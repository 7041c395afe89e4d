/**
 * GET /billing/usage and /billing/usage/{organisationId}/details (spec document 1, Usage record): what was used and
 * what it cost. Amounts are major units (dollars or rupees); records are priced in minor units e4.
 */
import type { Queryable } from '../db/database.ts';
import { badField } from '../errors.ts';
import { readWalletAccount } from '../wallet/ledger-repository.ts';
import type { WalletKind } from '../wallet/ledger-types.ts';
import { MINOR_PER_MAJOR } from '../wallet/money.ts';
import { currencyOfCountry } from './countries.ts';
import { loadProfile } from './plan-catalogue.ts';
import { pageOf, pagination, parseDateRange, type DateRange } from './query-values.ts';
import { E4 } from './rate-card.ts';
import { listUsage, summariseUsage, USAGE_TYPES, type UsageRecord, type UsageType } from './usage-repository.ts';

const SECONDS_PER_MINUTE = 60;
/** Minor units e4 as major units: 50000 (5 cents) → 0.05. */
const majorOfE4 = (e4: number): number => e4 / E4 / MINOR_PER_MAJOR;

export interface UsageSummary {
  periodStart: string | null;
  periodEnd: string | null;
  totalDurationSeconds: number;
  totalDurationMinutes: number;
  totalAmount: number;
  totalCalls: number;
  currency: string;
  byUsageType: Partial<Record<UsageType, { count: number; durationSeconds: number; amount: number }>>;
}

/**
 * Usage of the wallet the organisation pays from now (the pay-as-you-go wallet, or the plan wallet on plan
 * billing), so the totals are in one currency. The range applies only when both ends are given (400 when one is).
 */
export async function usageSummary(
  sql: Queryable,
  organisationId: string,
  query: { startDate?: string; endDate?: string },
): Promise<UsageSummary> {
  if ((query.startDate === undefined) !== (query.endDate === undefined)) {
    const missing = query.startDate === undefined ? 'startDate' : 'endDate';
    throw badField(missing, 'is required when the other end of the range is given (send both or neither)');
  }
  const range: DateRange = parseDateRange(query.startDate, query.endDate);
  const profile = await loadProfile(sql, organisationId);
  const wallet: WalletKind = profile.billingModel === 'WALLET' ? 'PLAN_WALLET' : 'WALLET';
  const account = await readWalletAccount(
    sql,
    organisationId,
    wallet,
    wallet === 'PLAN_WALLET' ? currencyOfCountry(profile.billingCountry) : undefined,
  );
  const currency = account?.currency ?? (wallet === 'WALLET' ? 'USD' : currencyOfCountry(profile.billingCountry));
  const totals = await summariseUsage(sql, { organisationId, wallet, currency, ...range });
  // Talk time: the calls' own seconds (a call's recording has the same duration and would count it twice).
  const seconds = totals.find((row) => row.usageType === 'VOICE_CALL')?.durationSeconds ?? 0;
  return {
    periodStart: range.from?.toISOString() ?? null,
    periodEnd: range.to?.toISOString() ?? null,
    totalDurationSeconds: seconds,
    totalDurationMinutes: Math.round((seconds / SECONDS_PER_MINUTE) * 100) / 100,
    totalAmount: majorOfE4(totals.reduce((sum, row) => sum + row.totalE4, 0)),
    totalCalls: totals.find((row) => row.usageType === 'VOICE_CALL')?.count ?? 0,
    currency,
    byUsageType: Object.fromEntries(
      totals.map((row) => [
        row.usageType,
        { count: row.count, durationSeconds: row.durationSeconds, amount: majorOfE4(row.totalE4) },
      ]),
    ),
  };
}

export interface UsageRecordView {
  id: string;
  organisationId: string;
  voiceSessionId: string | null;
  roomName: string | null;
  callDirection: 'INBOUND' | 'OUTBOUND' | null;
  usageType: UsageType;
  durationSeconds: number;
  billedSeconds: number;
  messageCount: number;
  /** Major units per minute for calls; per unit of the record's kind otherwise. */
  ratePerMinute: number;
  totalAmount: number;
  currency: string;
  startTime: string | null;
  endTime: string | null;
  billed: boolean;
  walletDeducted: boolean;
  createdAt: string;
}

export const usageRecordView = (record: UsageRecord): UsageRecordView => ({
  id: record.id,
  organisationId: record.organisationId,
  voiceSessionId: record.voiceSessionId,
  roomName: record.roomName,
  callDirection: record.callDirection,
  usageType: record.usageType,
  durationSeconds: record.durationSeconds,
  billedSeconds: record.billedSeconds,
  messageCount: record.messageCount,
  ratePerMinute: majorOfE4(record.rateE4),
  totalAmount: majorOfE4(record.totalE4),
  currency: record.currency,
  startTime: record.startTime?.toISOString() ?? null,
  endTime: record.endTime?.toISOString() ?? null,
  billed: record.billed,
  walletDeducted: record.walletDeducted,
  createdAt: record.createdAt.toISOString(),
});

export interface UsageDetailsQuery {
  startDate?: string;
  endDate?: string;
  usageType?: string;
  billed?: string;
  page?: number;
  limit?: number;
}

export async function usageDetails(sql: Queryable, organisationId: string, query: UsageDetailsQuery) {
  const range = parseDateRange(query.startDate, query.endDate);
  if (query.usageType !== undefined && !(USAGE_TYPES as readonly string[]).includes(query.usageType)) {
    throw badField('usageType', `must be one of: ${USAGE_TYPES.join(', ')}`);
  }
  if (query.billed !== undefined && query.billed !== 'true' && query.billed !== 'false') {
    throw badField('billed', 'must be true (billed records only) or false (unbilled only)');
  }
  await loadProfile(sql, organisationId);
  const page = pageOf(query.page, query.limit);
  const { records, total } = await listUsage(sql, {
    organisationId,
    ...range,
    usageType: query.usageType as UsageType | undefined,
    billed: query.billed === undefined ? undefined : query.billed === 'true',
    limit: page.limit,
    offset: page.offset,
  });
  return { records: records.map(usageRecordView), pagination: pagination(page, total) };
}
