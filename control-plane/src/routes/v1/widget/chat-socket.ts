/**
 * The chat conversation's websocket (GET /api/v1/widget/chat?token=<agentToken>; protocol in schemas of index.ts):
 * the session token is checked before the upgrade (HTTP 401 otherwise), the conversation so far is sent on open,
 * then each visitor message is answered in turn, the reply streamed token by token (chat/chat-replies.ts).
 * The socket closes when its session token expires; the widget bootstraps again for a fresh one.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { WebSocketServer, type WebSocket } from 'ws';
import { closeModel, type ChatReplies, type ChatSession } from '../../../chat/chat-replies.ts';
import { ApiError } from '../../../errors.ts';

export const CHAT_SOCKET_PATH = '/widget/chat';
/** Largest frame a widget sends, bytes: a message of MAX_CHAT_MESSAGE_CHARS in UTF-8 and its envelope. */
const MAX_FRAME_BYTES = 16 * 1024;
/** Messages one socket may have waiting for their turn: a person waits for the reply before typing much more. */
const MAX_WAITING_MESSAGES = 5;
/** Messages one socket may send per minute (as the HTTP fallback's widgetChat limit). */
const MESSAGES_PER_MINUTE = 20;
const MINUTE_MS = 60_000;
/** Close code sent when the session token expires (4000–4999 are the application's). */
const CLOSE_SESSION_EXPIRED = 4001;

type Outgoing =
  | { type: 'history'; roomName: string; messages: { role: 'visitor' | 'agent'; text: string; atMs: number }[] }
  | { type: 'token'; messageId: string; text: string }
  | { type: 'reply'; messageId: string; reply: string; replayed: boolean }
  | { type: 'ended'; roomName: string; endedAt: string }
  | { type: 'error'; messageId?: string; status: number; code: string; message: string };

export function attachChatSocket(app: FastifyInstance, options: { chat: ChatReplies; path: string }): void {
  const sockets = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });
  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(request.url ?? '/', 'http://widget.invalid');
    if (url.pathname !== options.path) return;
    options.chat.session(url.searchParams.get('token') ?? undefined).then(
      (session) =>
        sockets.handleUpgrade(request, socket, head, (ws) => {
          serve(ws, session, options.chat, app);
        }),
      (error: unknown) => {
        const status = error instanceof ApiError ? error.status : 500;
        const reason = error instanceof ApiError ? error.message : 'internal error';
        socket.end(
          `HTTP/1.1 ${status} ${status === 401 ? 'Unauthorized' : 'Refused'}\r\n` +
            `content-type: text/plain; charset=utf-8\r\nconnection: close\r\n\r\n${reason}`,
        );
      },
    );
  };
  app.server.on('upgrade', onUpgrade);
  app.addHook('onClose', async () => {
    app.server.off('upgrade', onUpgrade);
    for (const ws of sockets.clients) ws.terminate();
    sockets.close();
  });
}

function serve(ws: WebSocket, session: ChatSession, chat: ChatReplies, app: FastifyInstance): void {
  const send = (message: Outgoing) => {
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(message));
  };
  const expiry = setTimeout(
    () => ws.close(CLOSE_SESSION_EXPIRED, 'session expired'),
    session.claims.expiresAt - Date.now(),
  );
  const sentAt: number[] = [];
  let waiting = 0;
  let closed = false;
  // The conversation's LLM stream opens while the visitor reads the history; replies then run one at a time after it.
  let turn: Promise<void> = chat.holdModel(session).then(() => {
    if (closed) closeModel(session);
  });
  ws.on('close', () => {
    closed = true;
    clearTimeout(expiry);
    // After the reply being written, if any: it still needs the stream to finish.
    void turn.then(() => closeModel(session));
  });
  void chat.history(session).then(
    (lines) =>
      send({
        type: 'history',
        roomName: session.call.room_name,
        messages: lines.map((l) => ({ role: l.speaker === 'user' ? 'visitor' : 'agent', text: l.text, atMs: l.atMs })),
      }),
    (error: unknown) => {
      app.log.error({ err: error }, 'chat history');
      ws.close(1011, 'internal error');
    },
  );

  ws.on('message', (data, isBinary) => {
    const incoming = isBinary ? undefined : parse(data.toString());
    if (!incoming) {
      send({
        type: 'error',
        status: 400,
        code: 'validation_failed',
        message: 'Send {"type":"message","messageId","text"} or {"type":"end"}',
      });
      return;
    }
    if (incoming === 'end') {
      // After the replies already asked for: the visitor closes the conversation they see.
      turn = turn.then(async () => {
        try {
          const { roomName, endedAt } = await chat.end(session);
          send({ type: 'ended', roomName, endedAt: endedAt.toISOString() });
          ws.close(1000, 'conversation ended');
        } catch (error) {
          app.log.error({ err: error }, 'chat end');
          send({ type: 'error', status: 500, code: 'internal', message: 'The conversation could not be closed' });
        }
      });
      return;
    }
    const message = incoming;
    const now = Date.now();
    while (sentAt.length && sentAt[0]! <= now - MINUTE_MS) sentAt.shift();
    if (sentAt.length >= MESSAGES_PER_MINUTE || waiting >= MAX_WAITING_MESSAGES) {
      send({
        type: 'error',
        messageId: message.messageId,
        status: 429,
        code: 'rate_limited',
        message: 'Too many messages at once: wait for the reply before sending more',
      });
      return;
    }
    sentAt.push(now);
    waiting += 1;
    // One reply at a time, in the order the messages came: the model sees each answer before the next message.
    turn = turn.then(async () => {
      try {
        const answer = await chat.answer(session, message, (text) =>
          send({ type: 'token', messageId: message.messageId, text }),
        );
        send({ type: 'reply', ...answer });
      } catch (error) {
        if (!(error instanceof ApiError) || error.status >= 500) app.log.error({ err: error }, 'chat reply');
        const known = error instanceof ApiError;
        send({
          type: 'error',
          messageId: message.messageId,
          status: known ? error.status : 500,
          code: known ? error.code : 'internal',
          message: known ? error.message : 'The agent could not reply: please send the message again',
        });
      } finally {
        waiting -= 1;
      }
    });
  });
}

/**
 * A visitor message, 'end' (close the conversation), or undefined for anything else (the fields' own rules are
 * checked by ChatReplies).
 */
function parse(text: string): { messageId: string; text: string } | 'end' | undefined {
  try {
    const value = JSON.parse(text) as Record<string, unknown>;
    if (value?.type === 'end') return 'end';
    if (value?.type !== 'message' || typeof value.messageId !== 'string' || typeof value.text !== 'string')
      return undefined;
    return { messageId: value.messageId, text: value.text };
  } catch {
    return undefined;
  }
}
