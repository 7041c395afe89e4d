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
