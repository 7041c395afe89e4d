/**
 * Answering a chat conversation (docs/architecture.md §15): the visitor's message, checked and claimed once; the
 * agent's reply written by the same runtime as a call's — the PROMPT agent's system prompt and webhook tools
 * (`@parley/engine/agent`), the model behind the LLM workers over the bus — and streamed to the visitor token by
 * token; then, in one transaction, both transcript lines, the reply's usage record and its wallet debit.
 *
 * Money: the organisation must be allowed to spend (billing/call-permission.ts) before the model is asked — a 402
 * otherwise — and each reply is billed once, keyed on its reply row (billing/chat-metering.ts): a retried message
 * (same messageId) gets the stored reply back and is not billed again.
 */
import type { Bus } from '@parley/engine/bus';
import { buildSystemPrompt, runTextTurn, searchTools, type WebhookTool } from '@parley/engine/agent';
import type { ChatMessage, LlmClient } from '@parley/engine/clients';
import { findAgent } from '../agents/repository.ts';
import { agentRecord, type AgentRecord } from '../agents/records.ts';
import { callPermission } from '../billing/call-permission.ts';
import { meterChatReply } from '../billing/chat-metering.ts';
import { buildCallSpec } from '../calls/launch/call-spec.ts';
import { findCall } from '../calls/repository/launch-repository.ts';
import type { CallRow } from '../calls/repository/call-records.ts';
import type { Sql } from '../db/database.ts';
import { ApiError, badField, notFound } from '../errors.ts';
import { openLanguageModel } from '../language-model/open-llm.ts';
import type { KeyRing } from '../secrets/key-ring.ts';
import {
  claimMessage,
  conversationLines,
  endConversation,
  insertLines,
  lockReply,
  markAnswered,
  markFailed,
  touchConversation,
  type ChatLine,
} from './chat-repository.ts';
import { readChatSession, type ChatSessionClaims } from './chat-session-token.ts';
import { callbackTool, type CallbackPlacer } from './chat-callback.ts';
import { PerKeyLimit } from './per-key-limit.ts';

/** The longest visitor message, characters: a chat box, not a document upload. */
export const MAX_CHAT_MESSAGE_CHARS = 2_000;
/** The widget's message ids: short, URL-safe, chosen by the page (a retry sends the same one). */
export const MESSAGE_ID_PATTERN = '^[A-Za-z0-9_-]{1,64}$';
const MESSAGE_ID = new RegExp(MESSAGE_ID_PATTERN);
/** How long one reply may take, ms: the model's rounds and up to MAX_TOOL_ROUNDS webhook tools of 8 s each. */
export const REPLY_TIMEOUT_MS = 60_000;
/** How long a message stays claimed by the instance answering it, ms: past the reply's own timeout, with room. */
const REPLY_CLAIM_MS = REPLY_TIMEOUT_MS + 15_000;
/** How long a reply waits for an LLM worker to take the stream, ms, before the visitor is told none is there. */
export const LLM_OPEN_WAIT_MS = 5_000;
/**
 * Replies of one organisation this process stores at once: one holding the wallet's lock, one more getting its
 * lines and usage written meanwhile, so the lock is never idle while replies wait.
 */
const STORES_PER_ORGANISATION = 2;
/** Earlier lines sent to the model with each message: enough for a support chat, bounded in tokens. */
const HISTORY_LINES = 40;

/** A conversation a valid session token opened. */
export interface ChatSession {
  claims: ChatSessionClaims;
  call: CallRow;
  agent: AgentRecord;
  /**
   * The conversation's LLM stream while a websocket holds it open (as a call holds one for its length): opening a
   * stream is a bus round trip and a worker's setup, paid once per conversation instead of once per message. The
   * HTTP fallback has none and opens one per reply. Whoever sets it closes it (`closeModel`).
   */
  model?: LlmClient;
  /** Why the websocket's stream could not open (no LLM worker): the next reply answers with it at once. */
  modelFailure?: unknown;
}

/** Closes the conversation's LLM stream, if it holds one. */
export function closeModel(session: ChatSession): void {
  const model = session.model;
  session.model = undefined;
  try {
    model?.close();
  } catch {
    // The bus is already gone (shutting down): the stream went with it, and the worker frees it when idle.
  }
}

export interface ChatAnswer {
  messageId: string;
  reply: string;
  /** The message was answered before (a retry): the stored reply, nothing billed. */
  replayed: boolean;
}

export interface ChatRepliesDeps {
  sql: Sql;
  bus: Bus;
  keyRing: KeyRing | undefined;
  llmOpenWaitMs?: number;
  /** Places the callbacks a visitor asks for (chat-callback.ts); without it the agent offers none. */
  callbacks?: CallbackPlacer;
  log?: (level: 'info' | 'warn' | 'error', message: string, detail: object) => void;
}

export class ChatReplies {
  readonly #deps: ChatRepliesDeps;
  /** Replies of one organisation stored at once by this process (per-key-limit.ts says why). */
  readonly #storing = new PerKeyLimit(STORES_PER_ORGANISATION);

  constructor(deps: ChatRepliesDeps) {
    this.#deps = deps;
  }

  /** The conversation `token` opens: 401 for a token that is not one, or has expired. */
  async session(token: string | undefined): Promise<ChatSession> {
    const claims = token && this.#deps.keyRing ? readChatSession(this.#deps.keyRing, token) : undefined;
    if (!claims)
      throw new ApiError('unauthorized', 'Invalid or expired chat session token: bootstrap the widget again');
    const call = await findCall(this.#deps.sql, claims.callId);
    if (!call || call.call_type !== 'chat' || call.organisation_id !== claims.organisationId)
      throw notFound('Conversation');
    const row = await findAgent(this.#deps.sql, claims.organisationId, claims.agentId);
    if (!row) throw notFound('Agent');
    return { claims, call, agent: agentRecord(row) };
  }

  history(session: ChatSession): Promise<ChatLine[]> {
    return conversationLines(this.#deps.sql, session.call.id);
  }

  /** Answers the visitor's message, calling `onToken` with each piece of the reply as it is written. */
  async answer(
    session: ChatSession,
    message: { messageId: string; text: string },
    onToken: (text: string) => void = () => {},
  ): Promise<ChatAnswer> {
    const { sql } = this.#deps;
    const text = message.text.trim();
    if (!MESSAGE_ID.test(message.messageId)) throw badField('messageId', 'must be 1 to 64 letters, digits, "-" or "_"');
    if (!text) throw badField('text', 'must not be empty');
    if (text.length > MAX_CHAT_MESSAGE_CHARS)
      throw badField('text', `must be at most ${MAX_CHAT_MESSAGE_CHARS} characters`);
    if (!session.agent.isActive) throw new ApiError('invalid_state', 'The agent is not active: it cannot reply');
    const { call } = session;
    const receivedMs = Date.now() - call.created_at.getTime();
    // The three reads before the model is asked go out together: one round trip of waiting instead of three, on
    // the path to the visitor's first token (docs/architecture.md §15, "Where the first token's time goes").
    const [permission, { claimed, row }, lines] = await Promise.all([
      callPermission(sql, call.organisation_id),
      claimMessage(sql, {
        organisationId: call.organisation_id,
        callId: call.id,
        messageId: message.messageId,
        text,
        claimMs: REPLY_CLAIM_MS,
      }),
      this.history(session),
    ]);
    if (!permission.allowed) {
      // Claimed alongside the check: given back at once, so the visitor's retry is answered once money allows.
      if (claimed) await markFailed(sql, row.id, `refused by billing: ${permission.reason}`);
      // The visitor is not the account holder: the reason (a balance, a suspension) is for the organisation's eyes.
      this.#deps.log?.('warn', 'chat reply refused by billing', { callId: call.id, reason: permission.reason });
      throw new ApiError('payment_required', 'This agent cannot reply right now: please try again later');
    }
    if (row.visitor_text !== text)
      throw new ApiError('conflict', `messageId ${message.messageId} was already used for another message`);
    if (!claimed) {
      if (row.status === 'answered')
        return { messageId: message.messageId, reply: row.reply_text ?? '', replayed: true };
      throw new ApiError('conflict', 'This message is still being answered: wait for its reply');
    }
    try {
      const reply = await this.#write(session, text, lines, onToken);
      const startMs = Math.max(receivedMs, 0);
      const stored = await this.#storing.run(call.organisation_id, () =>
        sql.begin(async (tx) => {
          const current = await lockReply(tx, row.id);
          if (current?.status !== 'answering') return current;
          const endMs = Math.max(Date.now() - call.created_at.getTime(), startMs);
          const line = { organisationId: call.organisation_id, callId: call.id };
          await insertLines(tx, [
            { ...line, speaker: 'user', text, startMs, endMs: startMs },
            { ...line, speaker: 'assistant', text: reply, startMs: endMs, endMs },
          ]);
          // Active now for the idle sweep, and open again if it had ended (the visitor came back).
          await touchConversation(tx, call.id);
          // Metering last but one: the wallet's row lock it takes is held to the commit, and every reply of the
          // organisation waits for it, so as little as possible runs after it.
          const metered = await meterChatReply(tx, { callId: call.id, replyId: row.id, at: new Date() });
          if (metered.status === 'unpriced')
            this.#deps.log?.('error', 'no ai_web_chat_reply price on the rate card: reply not billed', metered);
          await markAnswered(tx, row.id, reply, metered.status === 'metered' ? metered.usage.id : null);
          return undefined;
        }),
      );
      // Another instance took the message over (its claim had lapsed) and answered first: theirs is the reply.
      if (stored?.status === 'answered')
        return { messageId: message.messageId, reply: stored.reply_text ?? '', replayed: true };
      return { messageId: message.messageId, reply, replayed: false };
    } catch (error) {
      await markFailed(sql, row.id, error instanceof Error ? error.message : String(error)).catch(() => {});
      throw error;
    }
  }

  /**
   * The visitor closed the conversation: it ends now and its post-call analysis is queued (chat-repository.ts).
   * Closing one already ended answers when it ended; a later message opens it again.
   */
  async end(session: ChatSession): Promise<{ roomName: string; endedAt: Date }> {
    const { call } = session;
    const ended = await this.#deps.sql.begin((tx) =>
      endConversation(tx, { callId: call.id, reason: 'visitor_closed' }),
    );
    if (ended) return { roomName: call.room_name, endedAt: ended.endedAt };
    const current = await findCall(this.#deps.sql, call.id);
    return { roomName: call.room_name, endedAt: current?.ended_at ?? new Date() };
  }

  /** The agent's reply to `text`, after the conversation so far (`history`, oldest first). */
  async #write(
    session: ChatSession,
    text: string,
    history: readonly ChatLine[],
    onToken: (text: string) => void,
  ): Promise<string> {
    const { call, agent } = session;
    const spec = buildCallSpec({
      callId: call.id,
      organisationId: call.organisation_id,
      agent,
      keyRing: this.#deps.keyRing,
      direction: 'INBOUND',
      participant: { name: call.participant_name, phoneNumber: call.phone_number },
      callVariables: call.custom_variables,
    });
    const lines = history.slice(-HISTORY_LINES);
    const messages: ChatMessage[] = [
      { role: 'system', content: buildSystemPrompt(spec.agent, spec.variables, 'chat') },
      ...lines.map((line): ChatMessage => ({ role: line.speaker, content: line.text })),
      { role: 'user', content: text },
    ];
    const held = session.model;
    const failure = session.modelFailure;
    if (failure !== undefined) {
      // The socket just waited for a worker and found none: the visitor hears so now, and the next message tries again.
      session.modelFailure = undefined;
      throw failure;
    }
    const model =
      held ??
      (await openLanguageModel(this.#deps.bus, `chat-${call.id}`, this.#deps.llmOpenWaitMs ?? LLM_OPEN_WAIT_MS));
    const deadline = AbortSignal.timeout(REPLY_TIMEOUT_MS);
    try {
      const result = await runTextTurn({
        messages,
        tools: spec.agent.functionTools as WebhookTool[],
        // The agent's knowledge bases and catalogues are searched as in a call: over v1.kb.search (§14).
        hostTools: [callbackTool(session, this.#deps.callbacks), ...searchTools(spec, this.#deps.bus)].filter(
          (tool) => tool !== undefined,
        ),
        model,
        signal: deadline,
        onToken,
      });
      // A reply cut off by the deadline is not a reply: nothing is stored or billed, and a retry answers anew.
      if (deadline.aborted)
        throw new ApiError('upstream_timeout', 'The agent took too long to reply: please send the message again');
      if (!result.text)
        throw new ApiError('upstream_failed', 'The agent wrote no reply: please send the message again');
      return result.text;
    } catch (error) {
      if (error instanceof ApiError) throw error;
      // A stream that failed (its worker gone for good) is not kept: the next reply opens a fresh one.
      if (held) closeModel(session);
      throw new ApiError('upstream_failed', 'The agent could not reply: please send the message again', {
        cause: error,
      });
    } finally {
      if (!held) model.close();
    }
  }

  /** Opens the LLM stream a websocket conversation keeps (`ChatSession.model`); a failure leaves it to each reply. */
  async holdModel(session: ChatSession): Promise<void> {
    if (session.model) return;
    try {
      session.model = await openLanguageModel(
        this.#deps.bus,
        `chat-${session.call.id}`,
        this.#deps.llmOpenWaitMs ?? LLM_OPEN_WAIT_MS,
      );
    } catch (error) {
      session.modelFailure = error;
      this.#deps.log?.('warn', 'chat conversation opened without an LLM stream', {
        callId: session.call.id,
        error: String(error),
      });
    }
  }
}
