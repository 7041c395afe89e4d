/**
 * The e-mail outbox: mail is written here in the same transaction as the change that causes it, so an invitation
 * is never saved without its mail nor mailed without being saved. The outbox job sends it.
 */
import type { Queryable } from '../../db/database.ts';
import { newId } from '../../db/ids.ts';
import type { Mail } from './mailer.ts';

export async function enqueueMail(sql: Queryable, organisationId: string | null, mail: Mail): Promise<string> {
  const id = newId();
  await sql`insert into email_outbox (id, organisation_id, recipient, subject, body_text, body_html)
            values (${id}, ${organisationId}, ${mail.to}, ${mail.subject}, ${mail.text}, ${mail.html ?? null})`;
  return id;
}

export interface OutboxRow {
  id: string;
  recipient: string;
  subject: string;
  body_text: string;
  body_html: string | null;
  attempts: number;
}

/**
 * Claims up to `limit` mails due now by pushing their next attempt `claimSeconds` into the future, under
 * FOR UPDATE SKIP LOCKED: two processes never claim the same mail, and no transaction stays open while sending.
 */
export async function claimDueMail(sql: Queryable, limit: number, claimSeconds: number): Promise<OutboxRow[]> {
  return sql<OutboxRow[]>`
    update email_outbox set next_attempt_at = now() + make_interval(secs => ${claimSeconds})
     where id in (select id from email_outbox
                   where status = 'PENDING' and next_attempt_at <= now()
                   order by next_attempt_at limit ${limit}
                   for update skip locked)
    returning id, recipient, subject, body_text, body_html, attempts`;
}

export async function markMailSent(sql: Queryable, id: string): Promise<void> {
  await sql`update email_outbox set status = 'SENT', sent_at = now(), attempts = attempts + 1,
            last_error = null where id = ${id}`;
}

/** Records a failed attempt: tried again after `retryInSeconds`, or FAILED for an operator when `final`. */
export async function markMailAttemptFailed(
  sql: Queryable,
  id: string,
  failure: { attempts: number; error: string; final: boolean; retryInSeconds: number },
): Promise<void> {
  await sql`update email_outbox set attempts = ${failure.attempts}, last_error = ${failure.error},
            status = ${failure.final ? 'FAILED' : 'PENDING'},
            next_attempt_at = now() + make_interval(secs => ${failure.retryInSeconds}) where id = ${id}`;
}
