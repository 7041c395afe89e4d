/**
 * Parley's website widget: `<script src="https://<parley>/widget.js" data-agent="<agent id>" data-token="<widget
 * token>"></script>` puts a chat button on the page; the panel asks the visitor's name and phone number (the spec
 * requires both to open a conversation), then chats with the agent, the reply appearing as it is written. The
 * conversation's roomName is kept in localStorage, so a reload resumes it. No framework; styles live in a shadow
 * root so the host page's CSS and the widget's never meet.
 *
 * Browser voice calls: when the agent has webCallEnabled the header shows a call button; the call runs over WebRTC
 * (widget-call.ts) and the button shows where it stands and hangs up.
 */
import { bootstrap, openChat, WidgetError, type Chat, type Identity, type Line, type Metadata } from './widget-api.ts';
import { BrowserCall, MICROPHONE_REFUSED, type CallState } from './widget-call.ts';
import { STYLES } from './widget-styles.ts';

/** The call button's words in each state of a call. */
const CALL_BUTTON_TEXT: Record<CallState, string> = {
  placing: 'Calling…',
  connecting: 'Connecting…',
  connected: 'Hang up',
  ended: 'Call',
};
const STORAGE_PREFIX = 'parley-widget:';
/** Pause before a dropped conversation is opened again, ms: long enough not to hammer a server that is restarting. */
const RECONNECT_DELAY_MS = 1_000;

/** What a visitor is told for each refusal: what happened and what to do, never an internal message. */
function explain(error: WidgetError): string {
  switch (error.status) {
    case 402:
      return 'The assistant cannot reply right now. Please try again later.';
    case 429:
      return 'You are sending messages very fast. Please wait a moment and try again.';
    case 502:
    case 503:
    case 504:
      return 'The assistant is unavailable at the moment. Please try again in a little while.';
    case 0:
      return 'You seem to be offline. Check your connection and try again.';
    case 400:
      return error.message;
    default:
      return 'Something went wrong. Please try again.';
  }
}

/** What a visitor is told when a call cannot start or breaks. */
function explainCall(error: WidgetError): string {
  switch (error.status) {
    case MICROPHONE_REFUSED:
      return 'To call, allow this page to use your microphone.';
    case 402:
      return 'Calls are not available right now. Please try again later.';
    case 429:
      return 'There have been too many calls today. Please try again tomorrow, or chat with us.';
    default:
      return explain(error);
  }
}

function randomId(prefix: string): string {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return prefix + Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className?: string,
  text?: string,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

class ParleyWidget {
  readonly #api: string;
  readonly #agentId: string;
  readonly #token: string;
  readonly #storageKey: string;
  readonly #panel = element('div', 'panel');
  readonly #title = element('div', 'title', 'Chat');
  readonly #log = element('div', 'log');
  readonly #status = element('div', 'status');
  readonly #form = element('form', 'compose');
  readonly #input = element('input');
  readonly #intro = element('form', 'intro');
  readonly #callButton = element('button', 'call', 'Call');
  readonly #endButton = element('button', 'end', 'End chat');
  readonly #audio = element('audio');
  #call: BrowserCall | undefined;
  #chat: Chat | undefined;
  #metadata: Metadata | undefined;
  /** The agent's bubble of each message being answered, by messageId, and the visitor's text (for a retry). */
  readonly #pending = new Map<string, { bubble: HTMLElement; text: string }>();

  constructor(script: HTMLScriptElement) {
    this.#agentId = script.dataset.agent ?? '';
    this.#token = script.dataset.token ?? '';
    this.#api = script.dataset.api ?? `${new URL(script.src).origin}/api/v1`;
    this.#storageKey = STORAGE_PREFIX + this.#agentId;
    const host = element('div');
    host.setAttribute('data-parley-widget', '');
    const root = host.attachShadow({ mode: 'open' });
    const style = element('style');
    style.textContent = STYLES;
    const launcher = element('button', 'launcher', 'Chat with us');
    launcher.addEventListener('click', () => {
      this.#panel.hidden = !this.#panel.hidden;
      if (!this.#panel.hidden) void this.#start();
    });
    this.#panel.hidden = true;
    this.#callButton.hidden = true;
    this.#callButton.type = 'button';
    this.#callButton.addEventListener('click', () => this.#toggleCall());
    this.#endButton.hidden = true;
    this.#endButton.type = 'button';
    this.#endButton.addEventListener('click', () => void this.#end());
    this.#audio.autoplay = true;
    const header = element('div', 'header');
    header.append(this.#title, this.#callButton, this.#endButton);
    this.#buildIntro();
    this.#input.placeholder = 'Type your message';
    this.#input.maxLength = 2000;
    this.#input.setAttribute('aria-label', 'Message');
    const send = element('button', 'send', 'Send');
    this.#form.append(this.#input, send);
    this.#form.hidden = true;
    this.#form.addEventListener('submit', (event) => {
      event.preventDefault();
      const text = this.#input.value.trim();
      if (!text || !this.#chat) return;
      this.#input.value = '';
      this.#send(randomId('m'), text);
    });
    this.#panel.append(header, this.#log, this.#status, this.#intro, this.#form);
    root.append(style, launcher, this.#panel, this.#audio);
    document.body.append(host);
    // A visitor who chatted before sees the conversation again at once.
    if (this.#stored()) {
      this.#panel.hidden = false;
      void this.#start();
    }
  }

  #buildIntro(): void {
    const name = element('input');
    name.name = 'name';
    name.placeholder = 'Your name';
    name.required = true;
    name.maxLength = 255;
    const phone = element('input');
    phone.name = 'phone';
    phone.placeholder = 'Your phone number';
    phone.required = true;
    phone.type = 'tel';
    phone.pattern = '\\+?[0-9][0-9 ()\\-]{5,30}';
    const start = element('button', 'send', 'Start chat');
    this.#intro.append(element('p', 'hint', 'Tell us who you are to start chatting.'), name, phone, start);
    this.#intro.hidden = true;
    this.#intro.addEventListener('submit', (event) => {
      event.preventDefault();
      const who = { participantName: name.value.trim(), phoneNumber: phone.value.trim(), roomName: randomId('web-') };
      localStorage.setItem(this.#storageKey, JSON.stringify(who));
      this.#intro.hidden = true;
      void this.#connect(who);
    });
  }

  #stored(): Identity | undefined {
    try {
      const value = JSON.parse(localStorage.getItem(this.#storageKey) ?? 'null') as Identity | null;
      return value?.roomName ? value : undefined;
    } catch {
      return undefined;
    }
  }

  #started = false;
  async #start(): Promise<void> {
    if (this.#started) return;
    this.#started = true;
    const who = this.#stored();
    if (who) return this.#connect(who);
    try {
      // The greeting waits for the visitor's name: it is the conversation's first line, filled with it.
      this.#show(await bootstrap(this.#api, this.#token, this.#agentId));
      this.#intro.hidden = false;
    } catch (error) {
      this.#started = false;
      this.#setStatus(explain(error as WidgetError));
    }
  }

  async #connect(who: Identity): Promise<void> {
    this.#setStatus('Connecting…');
    try {
      const metadata = await bootstrap(this.#api, this.#token, this.#agentId, who);
      this.#show(metadata);
      this.#chat = await openChat(this.#api, metadata.agentToken ?? '', {
        history: (lines) => this.#history(lines),
        token: (id, text) => this.#token_(id, text),
        reply: (id, reply) => this.#reply(id, reply),
        failed: (id, error) => this.#failed(id, error),
        closed: () => {
          // The session token expired or the line dropped: a fresh bootstrap resumes the same conversation.
          this.#chat = undefined;
          this.#form.hidden = true;
          this.#endButton.hidden = true;
          setTimeout(() => void this.#connect(who), RECONNECT_DELAY_MS);
        },
      });
      this.#setStatus('');
      this.#form.hidden = false;
      this.#endButton.hidden = false;
      this.#input.focus();
    } catch (error) {
      this.#setStatus(explain(error as WidgetError));
      // A conversation that can no longer be opened (its roomName taken, the agent replaced) starts afresh.
      if (error instanceof WidgetError && (error.status === 409 || error.status === 403)) {
        localStorage.removeItem(this.#storageKey);
        this.#started = false;
      }
    }
  }

  /**
   * The visitor ends the conversation: the server closes it (it is then analysed), and the panel forgets it, so the
   * next chat is a new conversation; the lines stay on screen until then.
   */
  async #end(): Promise<void> {
    const chat = this.#chat;
    if (!chat) return;
    this.#endButton.disabled = true;
    try {
      await chat.end();
      chat.close();
      this.#chat = undefined;
      localStorage.removeItem(this.#storageKey);
      this.#form.hidden = true;
      this.#endButton.hidden = true;
      this.#started = false;
      this.#setStatus('Chat ended. Thank you!');
      // Ready for a new conversation: the visitor's details are asked again.
      void this.#start();
    } catch (error) {
      this.#setStatus(explain(error as WidgetError));
    } finally {
      this.#endButton.disabled = false;
    }
  }

  #show(metadata: Metadata): void {
    this.#metadata = metadata;
    this.#title.textContent = metadata.agentName;
    this.#callButton.hidden = !metadata.webCallEnabled;
  }

  #toggleCall(): void {
    if (this.#call && this.#call.state !== 'ended') {
      this.#call.hangUp();
      return;
    }
    this.#setStatus('');
    this.#call = BrowserCall.start(this.#api, this.#token, this.#agentId, this.#stored(), this.#audio, {
      state: (state) => {
        this.#callButton.textContent = CALL_BUTTON_TEXT[state];
        this.#callButton.dataset.state = state;
        if (state === 'connected') this.#setStatus('On a call: speak now.');
        if (state === 'ended' && this.#status.textContent === 'On a call: speak now.') this.#setStatus('Call ended.');
      },
      failed: (error) => this.#setStatus(explainCall(error)),
    });
  }

  #history(lines: Line[]): void {
    this.#log.replaceChildren();
    for (const line of lines) this.#bubble(line.role, line.text);
  }

  #send(messageId: string, text: string): void {
    this.#bubble('visitor', text);
    const bubble = this.#bubble('agent', '');
    bubble.classList.add('typing');
    this.#pending.set(messageId, { bubble, text });
    this.#chat?.send(messageId, text);
  }

  #token_(messageId: string, text: string): void {
    const pending = this.#pending.get(messageId);
    if (!pending) return;
    pending.bubble.classList.remove('typing');
    pending.bubble.textContent += text;
    this.#log.scrollTop = this.#log.scrollHeight;
  }

  #reply(messageId: string, reply: string): void {
    const pending = this.#pending.get(messageId);
    if (!pending) return;
    this.#pending.delete(messageId);
    pending.bubble.classList.remove('typing');
    pending.bubble.textContent = reply;
    pending.bubble.dataset.complete = 'true';
    this.#log.scrollTop = this.#log.scrollHeight;
  }

  #failed(messageId: string | undefined, error: WidgetError): void {
    const pending = messageId === undefined ? undefined : this.#pending.get(messageId);
    if (!pending || messageId === undefined) {
      this.#setStatus(explain(error));
      return;
    }
    pending.bubble.classList.remove('typing');
    pending.bubble.classList.add('failed');
    pending.bubble.textContent = explain(error);
    const retry = element('button', 'retry', 'Try again');
    retry.type = 'button';
    // The same messageId: if the first attempt was answered after all, the stored reply comes back, billed once.
    retry.addEventListener('click', () => {
      retry.remove();
      pending.bubble.classList.remove('failed');
      pending.bubble.classList.add('typing');
      pending.bubble.textContent = '';
      this.#chat?.send(messageId, pending.text);
    });
    pending.bubble.after(retry);
  }

  #bubble(role: 'visitor' | 'agent', text: string): HTMLElement {
    const bubble = element('div', `bubble ${role}`, text);
    this.#log.append(bubble);
    this.#log.scrollTop = this.#log.scrollHeight;
    return bubble;
  }

  #setStatus(text: string): void {
    this.#status.textContent = text;
    this.#status.hidden = !text;
  }
}

const script = document.currentScript;
if (script instanceof HTMLScriptElement) {
  const mount = () => new ParleyWidget(script);
  if (document.body) mount();
  else document.addEventListener('DOMContentLoaded', mount, { once: true });
}
