/**
 * Metering chat replies (docs/architecture.md §10, §15): each reply a chat agent writes is one usage record
 * (CHATBOT_MESSAGE, one message) priced by the rate card's `ai_web_chat_reply` line in force at the reply, and one
 * wallet debit, in the transaction that stores the reply. The record's key `chat-reply:<reply id>` — one reply row
 * per visitor message (chat/chat-repository.ts) — makes a retried message, or a second instance writing the same
 * reply, bill nothing more. Pay-as-you-go pays from the USD wallet at the STARTER line (the organisation's
 * ratePerMinute is a price of call minutes, not replies), rounded up to a whole cent; plan billing pays from the
 * plan wallet of the billing country's currency at the plan tier's line. A wallet that cannot pay leaves the record
 * unpaid, as for calls (settlement.ts), and the next reply is refused with 402 until a credit settles it.
 */
import type { Queryable } from '../db/database.ts';
import type { WalletKind } from '../wallet/ledger-types.ts';
import { findCallToMeter } from './metering-repository.ts';
import { currencyOfCountry } from './countries.ts';
import { chargeE4, rateLineAt, type Tier } from './rate-card.ts';
import { chargeUsage } from './settlement.ts';
import { insertUsage, type UsageRecord } from './usage-repository.ts';

/** The rate-card line a chat reply is priced by. */
export const CHAT_REPLY_RATE_LINE = 'ai_web_chat_reply';

export type ReplyMeterOutcome =
  | { status: 'metered'; usage: UsageRecord; paid: boolean }
  /** This reply was billed before. */
  | { status: 'duplicate' }
  | { status: 'unpriced'; currency: string; tier: Tier }
  | { status: 'unknown_call' };

/** Bills reply `replyId` of conversation `callId` once, in the caller's transaction. */
export async function meterChatReply(
  tx: Queryable,
  reply: { callId: string; replyId: string; at: Date },
): Promise<ReplyMeterOutcome> {
  const call = await findCallToMeter(tx, reply.callId);
  if (!call) return { status: 'unknown_call' };
  const { terms } = call;
  const wallet: WalletKind = terms.billingModel === 'WALLET' ? 'PLAN_WALLET' : 'WALLET';
  const currency = wallet === 'PLAN_WALLET' ? currencyOfCountry(terms.billingCountry) : (terms.walletCurrency ?? 'USD');
  const tier: Tier = wallet === 'PLAN_WALLET' ? (terms.plan?.tier ?? 'STARTER') : 'STARTER';
  const line = await rateLineAt(tx, { key: CHAT_REPLY_RATE_LINE, currency, tier, at: reply.at });
  if (!line) return { status: 'unpriced', currency, tier };
  const usage = await insertUsage(tx, {
    organisationId: call.organisationId,
    voiceSessionId: call.id,
    roomName: call.roomName,
    callDirection: call.callDirection,
    usageType: 'CHATBOT_MESSAGE',
    durationSeconds: 0,
    billedSeconds: 0,
    messageCount: 1,
    rateE4: line.priceE4,
    totalE4: chargeE4(line, 1, wallet),
    currency: line.currency,
    wallet,
    startTime: reply.at,
    endTime: reply.at,
    idempotencyKey: `chat-reply:${reply.replyId}`,
  });
  if (!usage) return { status: 'duplicate' };
  return { status: 'metered', usage, paid: await chargeUsage(tx, usage) };
}
