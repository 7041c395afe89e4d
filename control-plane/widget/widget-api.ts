/**
 * The widget's conversation with Parley: bootstrap with the public widget token, then the chat over a websocket
 * opened by the chat session token — or, where a websocket cannot open (a proxy that strips upgrades), the same
 * chat over plain HTTP requests. Errors carry the HTTP status, so the panel can tell the visitor what to do.
 */

export interface Metadata {
  agentId: string;
  agentName: string;
  greetingMessage: string | null;
  roomName: string | null;
  agentToken: string | null;
  webCallEnabled: boolean;
}

export interface Line {
  role: 'visitor' | 'agent';
  text: string;
}

export class WidgetError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

export interface Identity {
  participantName: string;
  phoneNumber: string;
  roomName: string;
}

export async function bootstrap(api: string, widgetToken: string, agentId: string, who?: Identity): Promise<Metadata> {
  const body = { agentId, ...who };
  const response = await request(`${api}/widget/bootstrap`, {
    method: 'POST',
    headers: { authorization: `Bearer ${widgetToken}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return (response as { metadata: Metadata }).metadata;
}

async function request(url: string, init: RequestInit): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(url, init);
  } catch {
    throw new WidgetError(0, 'network');
  }
  const payload = (await response.json().catch(() => ({}))) as { data?: unknown; message?: string };
  if (!response.ok) throw new WidgetError(response.status, payload.message ?? response.statusText);
  return payload.data;
}

/** What the panel hears from a conversation. */
export interface ChatEvents {
  history(lines: Line[]): void;
  token(messageId: string, text: string): void;
  reply(messageId: string, reply: string): void;
  failed(messageId: string | undefined, error: WidgetError): void;
  /** The session token expired or the connection was lost: bootstrap again. */
  closed(): void;
}

export interface Chat {
  send(messageId: string, text: string): void;
  /** Closes the conversation for good (it ends and is analysed); resolves once the server has ended it. */
  end(): Promise<void>;
  close(): void;
}

/** How long the websocket has to open before the widget talks over HTTP instead, ms. */
const SOCKET_OPEN_TIMEOUT_MS = 5_000;

/** Opens the conversation over a websocket, falling back to HTTP when one cannot open. */
export function openChat(api: string, agentToken: string, events: ChatEvents): Promise<Chat> {
  return new Promise((resolve) => {
    const url = `${api.replace(/^http/, 'ws')}/widget/chat?token=${encodeURIComponent(agentToken)}`;
    let opened = false;
    let socket: WebSocket;
    try {
      socket = new WebSocket(url);
    } catch {
      // A page that forbids websockets (its content security policy) still chats over HTTP.
      resolve(httpChat(api, agentToken, events));
      return;
    }
    const fallBack = () => {
      if (opened) return;
      opened = true;
      socket.close();
      resolve(httpChat(api, agentToken, events));
    };
    const timer = setTimeout(fallBack, SOCKET_OPEN_TIMEOUT_MS);
    let live = false;
    let ended: (() => void) | undefined;
    socket.addEventListener('open', () => {
      clearTimeout(timer);
      if (opened) return;
      opened = true;
      live = true;
      resolve({
        send: (messageId, text) => socket.send(JSON.stringify({ type: 'message', messageId, text })),
        end: () =>
          new Promise<void>((resolveEnd) => {
            ended = resolveEnd;
            socket.send(JSON.stringify({ type: 'end' }));
          }),
        close: () => socket.close(),
      });
    });
    socket.addEventListener('error', () => {
      clearTimeout(timer);
      fallBack();
    });
    // Only a socket that was the conversation's line reports its end (a refused one fell back to HTTP already).
    socket.addEventListener('close', () => {
      if (live) events.closed();
    });
    socket.addEventListener('message', (event) => {
      const message = JSON.parse(String(event.data)) as Record<string, unknown>;
      if (message.type === 'ended') {
        // The server closes the socket next: an ended conversation is not a dropped line to reopen.
        live = false;
        ended?.();
      } else if (message.type === 'history') events.history(message.messages as Line[]);
      else if (message.type === 'token') events.token(String(message.messageId), String(message.text));
      else if (message.type === 'reply') events.reply(String(message.messageId), String(message.reply));
      else if (message.type === 'error')
        events.failed(
          message.messageId === undefined ? undefined : String(message.messageId),
          new WidgetError(Number(message.status), String(message.message)),
        );
    });
  });
}

function httpChat(api: string, agentToken: string, events: ChatEvents): Chat {
  const headers = { 'x-chat-token': agentToken, 'content-type': 'application/json' };
  request(`${api}/widget/chat/messages`, { headers: { 'x-chat-token': agentToken } }).then(
    (data) => events.history((data as { messages: Line[] }).messages),
    (error: WidgetError) => events.failed(undefined, error),
  );
  return {
    send(messageId, text) {
      request(`${api}/widget/chat/messages`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ messageId, text }),
      }).then(
        (data) => events.reply(messageId, (data as { reply: string }).reply),
        (error: WidgetError) => events.failed(messageId, error),
      );
    },
    async end() {
      await request(`${api}/widget/chat/end`, { method: 'POST', headers: { 'x-chat-token': agentToken } });
    },
    close() {},
  };
}
