/**
 * The SQL of chat conversations (migration 016; docs/architecture.md §15): a conversation's transcript lines, the
 * claim on each visitor message that makes a retry find its reply instead of a second one, and the browser-call
 * requests the widget's caps count.
 */
import { lockForTransaction, type Queryable } from '../db/database.ts';
import { newId } from '../db/ids.ts';

/** One line of a conversation, oldest first. */
export interface ChatLine {
  speaker: 'user' | 'assistant';
  text: string;
  /** ms since the conversation began. */
  atMs: number;
}

export async function conversationLines(sql: Queryable, callId: string): Promise<ChatLine[]> {
  const rows = await sql<{ speaker: 'user' | 'assistant'; text: string; start_ms: number }[]>`
    select speaker, text, start_ms from call_transcripts where call_id = ${callId} order by start_ms, end_ms, id`;
  return rows.map((row) => ({ speaker: row.speaker, text: row.text, atMs: row.start_ms }));
}

export async function insertLine(
  tx: Queryable,
  line: {
    organisationId: string;
    callId: string;
    speaker: 'user' | 'assistant';
    text: string;
    startMs: number;
    endMs: number;
  },
): Promise<void> {
  await tx`insert into call_transcripts (id, organisation_id, call_id, speaker, text, start_ms, end_ms)
    values (${newId()}, ${line.organisationId}, ${line.callId}, ${line.speaker}, ${line.text},
            ${Math.round(line.startMs)}, ${Math.round(line.endMs)})`;
}

export interface ChatReplyRow {
  id: string;
  status: 'answering' | 'answered' | 'failed';
  visitor_text: string;
  reply_text: string | null;
  usage_id: string | null;
}

/**
 * Takes the visitor message `messageId` of the conversation to answer it until `claimMs` from now: the row is new,
 * or an earlier attempt failed or outlived its claim. Otherwise answers the row as it is (answered, or being answered).
 */
export async function claimMessage(
  sql: Queryable,
  message: { organisationId: string; callId: string; messageId: string; text: string; claimMs: number },
): Promise<{ claimed: boolean; row: ChatReplyRow }> {
  const until = sql`now() + make_interval(secs => ${message.claimMs / 1000})`;
  const [inserted] = await sql<ChatReplyRow[]>`
    insert into chat_replies (id, organisation_id, call_id, message_id, visitor_text, claimed_until)
    values (${newId()}, ${message.organisationId}, ${message.callId}, ${message.messageId}, ${message.text}, ${until})
    on conflict (call_id, message_id) do nothing
    returning id, status, visitor_text, reply_text, usage_id`;
  if (inserted) return { claimed: true, row: inserted };
  const [retaken] = await sql<ChatReplyRow[]>`
    update chat_replies set status = 'answering', claimed_until = ${until}, failure = null
     where call_id = ${message.callId} and message_id = ${message.messageId}
       and (status = 'failed' or (status = 'answering' and claimed_until < now()))
    returning id, status, visitor_text, reply_text, usage_id`;
  if (retaken) return { claimed: true, row: retaken };
  const [row] = await sql<ChatReplyRow[]>`
    select id, status, visitor_text, reply_text, usage_id from chat_replies
     where call_id = ${message.callId} and message_id = ${message.messageId}`;
  return { claimed: false, row: row! };
}

/** The reply is written: false when the claim was lost meanwhile (another instance answered it). */
export async function markAnswered(
  tx: Queryable,
  replyId: string,
  text: string,
  usageId: string | null,
): Promise<boolean> {
  const rows = await tx`update chat_replies
       set status = 'answered', reply_text = ${text}, usage_id = ${usageId}, answered_at = now()
     where id = ${replyId} and status = 'answering'
    returning id`;
  return rows.length > 0;
}

export async function markFailed(sql: Queryable, replyId: string, failure: string): Promise<void> {
  await sql`update chat_replies set status = 'failed', failure = ${failure}
    where id = ${replyId} and status = 'answering'`;
}

/** Locks the reply's row for the transaction that writes its answer (two instances never both write one). */
export async function lockReply(tx: Queryable, replyId: string): Promise<ChatReplyRow | undefined> {
  const [row] = await tx<ChatReplyRow[]>`
    select id, status, visitor_text, reply_text, usage_id from chat_replies where id = ${replyId} for update`;
  return row;
}

/** How many browser calls the widget let through recently, for the spec's caps. */
export async function countCallRequests(
  sql: Queryable,
  by: { organisationId: string; phoneNumber: string; sinceMs: number } | { clientIp: string; sinceMs: number },
): Promise<number> {
  const since = sql`now() - make_interval(secs => ${by.sinceMs / 1000})`;
  const [row] =
    'phoneNumber' in by
      ? await sql<{ n: number }[]>`select count(*)::int as n from widget_call_requests
          where organisation_id = ${by.organisationId} and phone_number = ${by.phoneNumber} and created_at > ${since}`
      : await sql<{ n: number }[]>`select count(*)::int as n from widget_call_requests
          where client_ip = ${by.clientIp} and phone_number is null and created_at > ${since}`;
  return row!.n;
}

/** The same agent, visitor number and key owner asked within `withinMs` (spec: 409). */
export async function hasRecentCallRequest(
  sql: Queryable,
  key: { agentId: string; phoneNumber: string | null; requestedById: string; withinMs: number },
): Promise<boolean> {
  const [row] = await sql<{ found: boolean }[]>`
    select exists (select 1 from widget_call_requests
                    where agent_id = ${key.agentId} and requested_by_id = ${key.requestedById}
                      and phone_number is not distinct from ${key.phoneNumber}
                      and created_at > now() - make_interval(secs => ${key.withinMs / 1000})) as found`;
  return row!.found;
}

export async function insertCallRequest(
  tx: Queryable,
  request: {
    organisationId: string;
    agentId: string;
    requestedById: string;
    keyId: string;
    phoneNumber: string | null;
    clientIp: string;
  },
): Promise<void> {
  await tx`insert into widget_call_requests (id, organisation_id, agent_id, requested_by_id, key_id, phone_number, client_ip)
    values (${newId()}, ${request.organisationId}, ${request.agentId}, ${request.requestedById}, ${request.keyId},
            ${request.phoneNumber}, ${request.clientIp})`;
}

/** Serialises the browser-call requests of one organisation (the caps count what committed before). */
export async function lockCallRequests(tx: Queryable, organisationId: string): Promise<void> {
  await lockForTransaction(tx, `widget-call-requests:${organisationId}`);
}
