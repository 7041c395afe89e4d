/**
 * A chat conversation has no hang-up: a visitor who just leaves the page never says so. The idle sweep ends the
 * open conversations nobody wrote in for CHAT_IDLE_END_MS — at their last reply, reason `idle` — and so queues
 * their post-call analysis like a call's (docs/architecture.md §15). A visitor who comes back later reopens the
 * conversation with their next message, and it ends and is analysed again.
 *
 * Conversations are claimed with FOR UPDATE SKIP LOCKED, so control-plane instances sweeping together never end one
 * twice; a conversation with a reply being written is left for a later pass.
 */
import { PollLoop } from '../background/poll-loop.ts';
import type { Sql } from '../db/database.ts';
import { claimIdleConversations, endConversation } from './chat-repository.ts';

/**
 * Quiet time after which a conversation is over, ms: longer than a visitor takes to read a reply, look something
 * up and answer, short enough that its overview arrives while the conversation still matters.
 */
export const CHAT_IDLE_END_MS = 30 * 60_000;
/** How often the sweep looks, ms: a conversation ends at most this much later than its idle time. */
export const CHAT_IDLE_SWEEP_INTERVAL_MS = 60_000;
/** Conversations ended per pass (each in the pass's one transaction). */
const SWEEP_BATCH_SIZE = 100;

export type ChatSweepLog = (level: 'info' | 'error', message: string, detail: object) => void;

export class ChatIdleSweep {
  readonly #sql: Sql;
  readonly #log: ChatSweepLog;
  readonly #idleMs: number;
  readonly #loop: PollLoop;

  constructor(sql: Sql, log: ChatSweepLog = () => {}, options: { idleMs?: number; intervalMs?: number } = {}) {
    this.#sql = sql;
    this.#log = log;
    this.#idleMs = options.idleMs ?? CHAT_IDLE_END_MS;
    const intervalMs = options.intervalMs ?? CHAT_IDLE_SWEEP_INTERVAL_MS;
    this.#loop = new PollLoop({
      pass: () => this.runOnce(),
      intervalMs,
      firstDelayMs: intervalMs,
      onError: (error) => this.#log('error', 'chat idle sweep failed', { err: error }),
    });
  }

  start(): this {
    this.#loop.start();
    return this;
  }

  stop(): Promise<void> {
    return this.#loop.stop();
  }

  /** One pass: the ids of the conversations it ended. */
  async runOnce(): Promise<string[]> {
    const ended = (await this.#sql.begin(async (tx) => {
      const idle = await claimIdleConversations(tx, { idleMs: this.#idleMs, limit: SWEEP_BATCH_SIZE });
      const ids: string[] = [];
      for (const conversation of idle) {
        // It ended when it went quiet, not when the sweep noticed.
        const done = await endConversation(tx, {
          callId: conversation.id,
          reason: 'idle',
          endedAt: conversation.updated_at,
        });
        if (done) ids.push(conversation.id);
      }
      return ids;
    })) as string[];
    if (ended.length) this.#log('info', 'idle chat conversations ended', { count: ended.length });
    return ended;
  }
}
