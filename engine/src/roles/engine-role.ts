/**
 * The engine role (DESIGN.md §3 steps 1–2): a member of the `engine` queue group on `v1.engine.dispatch`. It
 * accepts a call, opens its worker streams while the phone rings (so the first word is warm), answers with a
 * stream token, and starts the call session when the call's media connection presents that token. A call whose
 * media never arrives is given up after the ring timeout.
 */
import { randomBytes } from 'node:crypto';
import type { PacingClock } from '../audio/pacing-clock.ts';
import { processPacingClock } from '../audio/pacing-clock.ts';
import type { Bus, BusMessage, Subscription } from '../bus/index.ts';
import { callCodecs, queues, subjects, type CallSpec } from '../protocol/index.ts';
import { fillTemplate } from '../agent/template.ts';
import { CallSession, type CallSummary } from '../session/call-session.ts';
import type { MediaTransport } from '../transports/media-transport.ts';
import { LlmClient } from '../workers/client/llm-client.ts';
import { SttClient } from '../workers/client/stt-client.ts';
import { TtsClient } from '../workers/client/tts-client.ts';
import type { EngineConfig } from './engine-config.ts';
import type { RoleLog } from './role-log.ts';

/** How long an accepted call waits for its media connection, ms: a phone rings about a minute before giving up. */
export const MEDIA_CONNECT_TIMEOUT_MS = 60_000;

interface PendingCall {
  spec: CallSpec;
  stt: SttClient;
  tts: TtsClient;
  llm: LlmClient | undefined;
  /** The greeting, synthesised while the phone rings so the first word is ready when the call is answered. */
  greetingAudio: Promise<Int16Array[]> | undefined;
  /** Stops the greeting's synthesis when the call is given up before it is answered. */
  abort: AbortController;
  timer: NodeJS.Timeout;
}

export class EngineRole {
  readonly role = 'engine';
  readonly engineId = `engine-${randomBytes(6).toString('hex')}`;
  readonly #bus: Bus;
  readonly #config: EngineConfig;
  readonly #log: RoleLog;
  readonly #clock: PacingClock;
  readonly #pending = new Map<string, PendingCall>();
  readonly #sessions = new Map<string, CallSession>();
  readonly #controls = new Map<string, Subscription>();
  #dispatch: Subscription | undefined;

  readonly #mediaTimeoutMs: number;

  /** @param options.mediaTimeoutMs how long an accepted call waits for its media; MEDIA_CONNECT_TIMEOUT_MS by default */
  constructor(config: EngineConfig, bus: Bus, log: RoleLog, options: { clock?: PacingClock; mediaTimeoutMs?: number } = {}) {
    this.#config = config;
    this.#bus = bus;
    this.#log = log;
    this.#clock = options.clock ?? processPacingClock();
    this.#mediaTimeoutMs = options.mediaTimeoutMs ?? MEDIA_CONNECT_TIMEOUT_MS;
  }

  get activeCalls(): number {
    return this.#sessions.size;
  }

  start(): this {
    const dispatch = this.#bus.subscribe(subjects.dispatch(), { queue: queues.engine });
    this.#dispatch = dispatch;
    void (async () => {
      for await (const message of dispatch) void this.#accept(message);
    })();
    return this;
  }

  /**
   * The call's media connection arrived with `streamToken`: runs the call on `transport` until it ends.
   * Rejects for an unknown or expired token (the transport should refuse the connection).
   */
  attach(streamToken: string, transport: MediaTransport): Promise<CallSummary> {
    const pending = this.#pending.get(streamToken);
    if (!pending) return Promise.reject(Object.assign(new Error('unknown or expired stream token'), { code: 'bad_stream_token' }));
    this.#pending.delete(streamToken);
    clearTimeout(pending.timer);
    const session = new CallSession(pending.spec, {
      bus: this.#bus,
      transport,
      clock: this.#clock,
      stt: pending.stt,
      tts: pending.tts,
      llm: pending.llm,
      greetingAudio: pending.greetingAudio,
      log: this.#log,
    });
    const callId = pending.spec.callId;
    this.#sessions.set(callId, session);
    this.#listenForControl(callId, session);
    return session.run().finally(() => {
      this.#sessions.delete(callId);
      this.#controls.get(callId)?.unsubscribe();
      this.#controls.delete(callId);
    });
  }

  async close(): Promise<void> {
    this.#dispatch?.unsubscribe();
    for (const [token, pending] of this.#pending) {
      clearTimeout(pending.timer);
      this.#closeClients(pending);
      this.#pending.delete(token);
    }
    await Promise.all([...this.#sessions.values()].map((s) => s.end('engine_shutdown', 'failed', false)));
  }

  async #accept(message: BusMessage): Promise<void> {
    let spec: CallSpec;
    try {
      spec = callCodecs.spec.decode(message.data);
    } catch (error) {
      message.respond(callCodecs.dispatchReply.encode({ ok: false, code: 'bad_message', message: (error as Error).message, retryable: false }));
      return;
    }
    try {
      const options = { language: spec.agent.language, mode: spec.agent.sttMode ?? undefined, provider: spec.agent.sttProvider ?? undefined };
      const [stt, tts, llm] = await Promise.all([
        SttClient.open(this.#bus, spec.callId, options),
        TtsClient.open(this.#bus, spec.callId, { provider: spec.agent.voiceProvider ?? undefined, voiceId: spec.agent.voiceId ?? undefined, speed: spec.agent.voiceSpeed, language: spec.agent.language }),
        this.#config.llm ? LlmClient.open(this.#bus, spec.callId) : Promise.resolve(undefined),
      ]);
      const streamToken = randomBytes(24).toString('base64url');
      const abort = new AbortController();
      const greeting = spec.agent.greetingMessage ? fillTemplate(spec.agent.greetingMessage, spec.variables) : '';
      const pending: PendingCall = {
        spec, stt, tts, llm, abort,
        greetingAudio: greeting ? collect(tts.say(greeting, {}, abort.signal)) : undefined,
        timer: setTimeout(() => this.#expire(streamToken), this.#mediaTimeoutMs),
      };
      pending.greetingAudio?.catch(() => {}); // a failed pre-synthesis falls back to speaking at answer time
      pending.timer.unref();
      this.#pending.set(streamToken, pending);
      message.respond(callCodecs.dispatchReply.encode({ ok: true, engineId: this.engineId, streamToken }));
      this.#log('call accepted', { callId: spec.callId });
    } catch (error) {
      const e = error as { code?: string; retryable?: boolean; message?: string };
      message.respond(callCodecs.dispatchReply.encode({ ok: false, code: e.code ?? 'engine_failed', message: e.message ?? String(error), retryable: e.retryable ?? true }));
    }
  }

  #expire(streamToken: string): void {
    const pending = this.#pending.get(streamToken);
    if (!pending) return;
    this.#pending.delete(streamToken);
    this.#closeClients(pending);
    this.#bus.publish(subjects.callEvents(pending.spec.callId), callCodecs.event.encode({
      type: 'ended', reason: 'media_never_connected', outcome: 'no_answer', durationMs: 0, latency: { turns: [] },
    }));
  }

  #closeClients(pending: PendingCall): void {
    pending.abort.abort();
    pending.stt.close();
    pending.tts.close();
    pending.llm?.close();
  }

  #listenForControl(callId: string, session: CallSession): void {
    const control = this.#bus.subscribe(subjects.callControl(callId));
    this.#controls.set(callId, control);
    void (async () => {
      for await (const message of control) {
        try {
          const command = callCodecs.control.decode(message.data);
          if (command.type === 'end') void session.end(command.reason);
          else if (command.type === 'say') void session.say(command.text);
          else if (command.type === 'inject') session.inject(command.text);
          else void session.transfer(command.to);
        } catch (error) {
          this.#log('bad control message', { callId, error: String(error) });
        }
      }
    })();
  }
}

async function collect(pieces: AsyncIterable<Int16Array>): Promise<Int16Array[]> {
  const all: Int16Array[] = [];
  for await (const piece of pieces) all.push(piece);
  return all;
}

export async function startEngineRole(config: EngineConfig, bus: Bus, log: RoleLog): Promise<EngineRole> {
  return new EngineRole(config, bus, log).start();
}
