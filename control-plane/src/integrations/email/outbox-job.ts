/**
 * Sends what the e-mail outbox holds. Rows are claimed by pushing their next attempt into the future under
 * `FOR UPDATE SKIP LOCKED`, so several control-plane processes never send the same mail twice at once, and no
 * transaction stays open while talking to the mail server. A process that dies mid-send leaves the claim to lapse
 * and another process retries it: delivery is at least once.
 */
import type { Logger } from 'pino';
import { PollLoop } from '../../background/poll-loop.ts';
import type { Sql } from '../../db/database.ts';
import type { Mailer } from './mailer.ts';
import { claimDueMail, markMailAttemptFailed, markMailSent } from './outbox-repository.ts';

/** How often the outbox is checked when nothing wakes it. */
export const OUTBOX_POLL_INTERVAL_MS = 1_000;
/** Rows claimed per pass: small, so one slow SMTP server does not hold many mails behind it. */
const OUTBOX_BATCH_SIZE = 10;
/** A claim lasts this long; longer than any single send can take (SMTP timeouts are 15 s). */
const OUTBOX_CLAIM_SECONDS = 120;
/** After this many failed attempts a mail is marked FAILED and left for an operator. */
export const OUTBOX_MAX_ATTEMPTS = 8;
/** First retry delay; doubled on every further failure (30 s, 1 min, 2 min … about 1 h at the 8th). */
const OUTBOX_RETRY_BASE_SECONDS = 30;

export class EmailOutboxJob {
  readonly #sql: Sql;
  readonly #mailer: Mailer;
  readonly #log: Logger;
  readonly #loop: PollLoop;

  constructor(sql: Sql, mailer: Mailer, log: Logger) {
    this.#sql = sql;
    this.#mailer = mailer;
    this.#log = log;
    this.#loop = new PollLoop({
      pass: () => this.runOnce(),
      intervalMs: OUTBOX_POLL_INTERVAL_MS,
      onError: (error) => this.#log.error({ err: error }, 'e-mail outbox pass failed'),
    });
  }

  start(): void {
    this.#loop.start();
  }

  /** Sends due mail now instead of at the next poll. */
  wake(): void {
    this.#loop.nudge();
  }

  stop(): Promise<void> {
    return this.#loop.stop();
  }

  /** One pass: claims and sends a batch; returns how many were sent. */
  async runOnce(): Promise<number> {
    const rows = await claimDueMail(this.#sql, OUTBOX_BATCH_SIZE, OUTBOX_CLAIM_SECONDS);
    let sent = 0;
    for (const row of rows) {
      try {
        await this.#mailer.send({ to: row.recipient, subject: row.subject, text: row.body_text, html: row.body_html });
        await markMailSent(this.#sql, row.id);
        sent += 1;
      } catch (error) {
        const attempts = row.attempts + 1;
        const failed = attempts >= OUTBOX_MAX_ATTEMPTS;
        const delay = OUTBOX_RETRY_BASE_SECONDS * 2 ** (attempts - 1);
        this.#log.warn(
          { err: error, mailId: row.id, attempts },
          failed ? 'mail failed for good' : 'mail failed, will retry',
        );
        await markMailAttemptFailed(this.#sql, row.id, {
          attempts,
          error: String((error as Error).message ?? error),
          final: failed,
          retryInSeconds: delay,
        });
      }
    }
    return sent;
  }
}
