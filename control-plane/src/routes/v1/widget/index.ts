/**
 * The website widget's routes (spec document 2, Widget; docs/architecture.md §15): POST /widget/bootstrap and
 * POST /widget/voice-session with the agent's public widget token (auth mode `widget`, scope widget:bootstrap,
 * 30 a minute per client address), and the chat conversation's HTTP fallback opened by the chat session token
 * (header x-chat-token). The chat websocket is chat-socket.ts. A website of any origin embeds the widget, so these
 * answers allow any origin (the tokens are bearer values sent by script, never cookies).
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ChatReplies } from '../../../chat/chat-replies.ts';
import { bootstrapWidget } from '../../../chat/widget-bootstrap.ts';
import { requestWidgetVoiceSession } from '../../../chat/widget-voice-session.ts';
import { ApiError } from '../../../errors.ts';
import { ok } from '../../../http/envelope.ts';
import { principalOf } from '../../../plugins/app/auth.ts';
import type { KeyRing } from '../../../secrets/key-ring.ts';
import type { WebPlacementDeps } from '../../../calls/launch/web-placement.ts';
import { attachChatSocket, CHAT_SOCKET_PATH } from './chat-socket.ts';
import * as schemas from './schemas.ts';

/** How long a browser may keep a preflight answer, s. */
const PREFLIGHT_MAX_AGE_S = 600;

function allowCrossOrigin(reply: FastifyReply): FastifyReply {
  return reply
    .header('access-control-allow-origin', '*')
    .header('access-control-allow-headers', 'authorization, content-type, x-chat-token')
    .header('access-control-allow-methods', 'GET, POST, OPTIONS')
    .header('access-control-max-age', String(PREFLIGHT_MAX_AGE_S));
}

/**
 * The CORS preflight (OPTIONS) of the widget's routes, answered before routing: no OPTIONS route exists, so the
 * OpenAPI document lists only the real operations. Installed on the root instance (composition), since a route
 * that does not exist gets only the root's hooks.
 */
export function answerWidgetPreflight(app: FastifyInstance, apiPrefix: string): void {
  const widgetPaths = `${apiPrefix}/widget/`;
  app.addHook('onRequest', async (request, reply) => {
    if (request.method !== 'OPTIONS' || !request.url.startsWith(widgetPaths)) return;
    return allowCrossOrigin(reply).code(204).send();
  });
}

export interface WidgetRouteOptions {
  keyRing: KeyRing | undefined;
  chat: ChatReplies;
  /** The API prefix the routes are mounted under (the websocket path is matched before routing). */
  apiPrefix: string;
  /** What placing a browser call needs (calls/launch/web-placement.ts): the widget's voice session places one. */
  web: WebPlacementDeps;
}

export default async function widgetRoutes(app: FastifyInstance, options: WidgetRouteOptions) {
  // onSend runs for refusals too (401 from authentication, 429), so a page can read why it was refused.
  app.addHook('onSend', async (_request, reply) => {
    allowCrossOrigin(reply);
  });

  const widgetLimit = app.limit('widget', 'ip');
  app.post<{ Body: schemas.BootstrapBody }>(
    '/widget/bootstrap',
    { schema: schemas.bootstrap, config: { auth: 'widget', scope: 'widget:bootstrap' }, preHandler: [widgetLimit] },
    async (request) => {
      const metadata = await bootstrapWidget(
        { sql: app.sql, keyRing: options.keyRing },
        principalOf(request),
        request.body,
      );
      return ok({ metadata });
    },
  );

  app.post<{ Body: schemas.VoiceSessionBody }>(
    '/widget/voice-session',
    { schema: schemas.voiceSession, config: { auth: 'widget', scope: 'widget:bootstrap' }, preHandler: [widgetLimit] },
    async (request) =>
      ok(await requestWidgetVoiceSession(app.sql, options.web, principalOf(request), request.body, request.ip)),
  );

  app.get('/widget/chat/messages', { schema: schemas.history, config: { auth: 'public' } }, async (request) => {
    const session = await options.chat.session(chatToken(request.headers['x-chat-token']));
    const lines = await options.chat.history(session);
    return ok({
      roomName: session.call.room_name,
      messages: lines.map((line) => ({
        role: line.speaker === 'user' ? ('visitor' as const) : ('agent' as const),
        text: line.text,
        atMs: line.atMs,
      })),
    });
  });

  app.post<{ Body: schemas.MessageBody }>(
    '/widget/chat/messages',
    { schema: schemas.message, config: { auth: 'public' }, preHandler: [app.limit('widgetChat', 'ip')] },
    async (request) => {
      const session = await options.chat.session(chatToken(request.headers['x-chat-token']));
      return ok(await options.chat.answer(session, request.body));
    },
  );

  app.post(
    '/widget/chat/end',
    { schema: schemas.end, config: { auth: 'public' }, preHandler: [app.limit('widgetChat', 'ip')] },
    async (request) => {
      const session = await options.chat.session(chatToken(request.headers['x-chat-token']));
      const { roomName, endedAt } = await options.chat.end(session);
      return ok({ roomName, endedAt: endedAt.toISOString() });
    },
  );

  app.get(
    '/widget/chat',
    {
      schema: {
        tags: ['widget'],
        summary: 'The chat conversation as a websocket (connect with Upgrade: websocket and ?token=<agentToken>)',
        description:
          'Server → widget: `{"type":"history","roomName","messages":[{role,text,atMs}]}` on open, then per message ' +
          '`{"type":"token","messageId","text"}` as the reply is written and `{"type":"reply","messageId","reply",' +
          '"replayed"}` at its end, or `{"type":"error","messageId","status","code","message"}`. Widget → server: ' +
          '`{"type":"message","messageId","text"}`, and `{"type":"end"}` to close the conversation (answered ' +
          '`{"type":"ended","roomName","endedAt"}` after the replies in progress, then the socket closes). A bad or expired token is refused with HTTP 401 before the upgrade. ' +
          'A plain GET (no upgrade) is answered 400.',
        response: { 400: { $ref: 'ErrorBody' } },
      },
      config: { auth: 'public' },
    },
    async () => {
      throw new ApiError('invalid_state', 'This is a websocket endpoint: connect with Upgrade: websocket and ?token=');
    },
  );
  attachChatSocket(app, { chat: options.chat, path: `${options.apiPrefix}${CHAT_SOCKET_PATH}` });
}

function chatToken(header: string | string[] | undefined): string | undefined {
  return typeof header === 'string' ? header.trim() : undefined;
}
