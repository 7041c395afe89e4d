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

export interface NewChatLine {
  organisationId: string;
  callId: string;
  speaker: 'user' | 'assistant';
  text: string;
  startMs: number;
  endMs: number;
}

export async function insertLine(tx: Queryable, line: NewChatLine): Promise<void> {
  await insertLines(tx, [line]);
}

/** Several lines in one statement (a reply's two lines: one round trip inside the reply's transaction). */
export async function insertLines(tx: Queryable, lines: readonly NewChatLine[]): Promise<void> {
  const rows = lines.map((line) => ({
    id: newId(),
    organisation_id: line.organisationId,
    call_id: line.callId,
    speaker: line.speaker,
    text: line.text,
    start_ms: Math.round(line.startMs),
    end_ms: Math.round(line.endMs),
  }));
  await tx`insert into call_transcripts ${tx(rows, 'id', 'organisation_id', 'call_id', 'speaker', 'text', 'start_ms', 'end_ms')}`;
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

/** Why a conversation ended: the visitor closed it, or it sat idle past CHAT_IDLE_END_MS. */
export type ChatEndReason = 'visitor_closed' | 'idle';

/**
 * Ends the open conversation `callId` at `endedAt` (default now) and queues its post-call analysis, in one
 * transaction; undefined when it had already ended (ending twice changes nothing). A conversation holds no line,
 * so its call_status stays null: its duration runs from its opening to its end.
 */
export async function endConversation(
  tx: Queryable,
  end: { callId: string; reason: ChatEndReason; endedAt?: Date },
): Promise<{ organisationId: string; endedAt: Date } | undefined> {
  const endedAt = end.endedAt ?? new Date();
  const [row] = await tx<{ organisation_id: string; ended_at: Date }[]>`
    update call_records set ended_at = greatest(${endedAt}::timestamptz, created_at),
           call_duration = greatest(0, round(extract(epoch from (greatest(${endedAt}::timestamptz, created_at) - created_at)) * 1000))::integer,
           meta_data = meta_data || jsonb_build_object('endReason', ${end.reason}::text), updated_at = now()
     where id = ${end.callId} and call_type = 'chat' and ended_at is null
    returning organisation_id, ended_at`;
  if (!row) return undefined;
  await queueChatAnalysis(tx, end.callId, row.organisation_id);
  return { organisationId: row.organisation_id, endedAt: row.ended_at };
}

/**
 * The conversation's post-call analysis, due now (a conversation has no late events: its transcript is written with
 * each reply). Unlike a call, a conversation can end again after a visitor came back to it: an analysis already
 * done is armed again so it covers the whole conversation; one being run (leased) is left to finish.
 */
async function queueChatAnalysis(tx: Queryable, callId: string, organisationId: string): Promise<void> {
  await tx`insert into call_analysis_jobs (id, organisation_id, call_id, next_attempt_at)
           values (${newId()}, ${organisationId}, ${callId}, now())
           on conflict (call_id) do update
             set status = 'pending', attempts = 0, next_attempt_at = now(), last_error = null, finished_at = null
             where call_analysis_jobs.lease_token is null`;
  await tx`update call_records set analysis_status = 'pending', analysis_error = null where id = ${callId}`;
}

/**
 * A reply was written: the conversation is active now (the idle sweep measures from here), and open again if it had
 * ended — a visitor may come back to a conversation, which then ends, and is analysed, again.
 */
export async function touchConversation(tx: Queryable, callId: string): Promise<void> {
  await tx`update call_records
              set updated_at = now(), ended_at = null, call_duration = null, meta_data = meta_data - 'endReason'
            where id = ${callId} and call_type = 'chat'`;
}

/**
 * Open conversations with nothing written for `idleMs` and no reply being written, oldest first, locked for the
 * caller's transaction (SKIP LOCKED: sweepers of several instances share the work).
 */
export async function claimIdleConversations(
  tx: Queryable,
  idle: { idleMs: number; limit: number },
): Promise<{ id: string; updated_at: Date }[]> {
  const before = tx`now() - make_interval(secs => ${idle.idleMs / 1000})`;
  return tx<{ id: string; updated_at: Date }[]>`
    select c.id, c.updated_at from call_records c
     where c.call_type = 'chat' and c.ended_at is null and c.updated_at < ${before}
       and not exists (select 1 from chat_replies r
                        where r.call_id = c.id and r.status = 'answering' and r.claimed_until > now())
     order by c.updated_at limit ${idle.limit}
     for update of c skip locked`;
}
