/**
 * The engine role (docs/architecture.md §3 steps 1–2): a member of the `engine` queue group on `v1.engine.dispatch`. It
 * accepts a call, opens its worker streams while the phone rings (so the first word is warm), answers with a
 * signed stream token (stream-tokens.ts) and, when it runs a media server, the URL carriers reach it at; it starts
 * the call session when the call's media connection presents that token, once. A call whose media never arrives
 * is given up after the ring timeout.
 */
import { randomBytes } from 'node:crypto';
import { openCallRecording, type CallRecording } from '../storage/call-recording.ts';
import { RecordingStorage } from '../storage/recording-storage.ts';
import type { PacingClock } from '../audio/pacing-clock.ts';
import { processPacingClock } from '../audio/pacing-clock.ts';
import type { Bus, BusMessage, Subscription } from '../bus/index.ts';
import { callCodecs, ENGINE_DRAINING, queues, subjects, type CallSpec } from '../protocol/index.ts';
import { fillTemplate } from '../protocol/template.ts';
import { CallSession, type CallSummary } from '../session/call-session.ts';
import type { MediaTransport } from '../transports/media-transport.ts';
import { LlmClient } from '../workers/client/llm-client.ts';
import { SttClient } from '../workers/client/stt-client.ts';
import { TtsClient } from '../workers/client/tts-client.ts';
import { WorkerPool } from '../workers/client/worker-pool.ts';
import type { EngineConfig } from './engine-config.ts';
import { childLog, type RoleLog } from './role-log.ts';
import type { VoiceActivitySource } from './voice-activity.ts';
import { greetingAudio } from './greeting-lookup.ts';
import { joinLiveKitRoom } from './livekit-join.ts';
import { openWorker } from './missing-worker.ts';
import { SpentTokens } from './spent-tokens.ts';
import { StreamTokens } from './stream-tokens.ts';
import { StreamTokenError, type StreamClaim } from './stream-claim.ts';
import { listenForBridge, type BridgeListener } from './bus-media-bridge.ts';
import { EngineHeartbeatSender } from './engine-heartbeat.ts';
import { settledWithin } from '../streams/within.ts';

/** How long an accepted call waits for its media connection, ms: a phone rings about a minute before giving up. */
export const MEDIA_CONNECT_TIMEOUT_MS = 60_000;

/** How long a drain waits for the dispatch subscription's own drain (a round trip to NATS), ms. */
const DISPATCH_DRAIN_TIMEOUT_MS = 2_000;

/**
 * What the agent says to a caller still on the line when a draining engine's deadline comes and the agent has no
 * closing message of its own: the caller hears why the call ends rather than a sudden silence.
 */
export const DRAIN_CLOSING_LINE =
  'I am sorry, I have to end our call now. Please call back if you need anything else. Goodbye.';

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
  /** The SIP gateway's way in: a `start` on `v1.media.<callId>.in` (bus-media-bridge.ts). */
  bridge?: BridgeListener;
}

export class EngineRole {
  readonly role = 'engine';
  readonly engineId = `engine-${randomBytes(6).toString('hex')}`;
  readonly #bus: Bus;
  readonly #log: RoleLog;
  readonly #clock: PacingClock;
  readonly #pending = new Map<string, PendingCall>();
  readonly #sessions = new Map<string, CallSession>();
  /** Each running call's end, for a drain to wait on. */
  readonly #runs = new Set<Promise<unknown>>();
  readonly #heartbeat: EngineHeartbeatSender;
  /** The workers alive on the bus: a call opens a language model stream when an llm worker announces a model. */
  readonly #workerPool: WorkerPool;
  /** Whether the pool was made here (and is stopped on close) rather than lent by startEngineRole. */
  readonly #ownsWorkerPool: boolean;
  /** Set the moment a drain begins: from then on no dispatch is accepted and the heartbeat says so. */
  #draining = false;
  #drained: Promise<void> | undefined;
  readonly #tokens: StreamTokens;
  readonly #spent = new SpentTokens();
  readonly #mediaUrl: string | undefined;
  #dispatch: Subscription | undefined;

  readonly #mediaTimeoutMs: number;
  readonly #voiceActivity: VoiceActivitySource | undefined;
  readonly #onClose: (() => Promise<void>) | undefined;
  /** Where recordings go (the local folder, then the bucket when configured); undefined: calls are not recorded. */
  readonly #recordings: RecordingStorage | undefined;

  /**
   * @param options.mediaTimeoutMs how long an accepted call waits for its media; MEDIA_CONNECT_TIMEOUT_MS by default
   * @param options.voiceActivity each call's detector (startEngineRole loads it per PARLEY_VAD); default the gate alone.
   *   It is borrowed: whoever loaded it closes it (startEngineRole does, through `onClose`).
   * @param options.onClose runs after the role has closed
   * @param options.mediaUrl where carriers reach this engine's media server (PARLEY_MEDIA_URL), told in every
   *   dispatch reply; undefined when this engine runs no media server (tests, the bench)
   * @param options.tokens signs and checks stream tokens; a per-process secret by default
   * @param options.workerPool the workers alive on the bus (borrowed); by default the role watches its own
   */
  constructor(config: EngineConfig, bus: Bus, log: RoleLog, options: EngineRoleOptions = {}) {
    this.#bus = bus;
    this.#log = log;
    this.#clock = options.clock ?? processPacingClock();
    this.#mediaTimeoutMs = options.mediaTimeoutMs ?? MEDIA_CONNECT_TIMEOUT_MS;
    this.#voiceActivity = options.voiceActivity;
    this.#onClose = options.onClose;
    this.#mediaUrl = options.mediaUrl;
    this.#tokens = options.tokens ?? new StreamTokens();
    this.#ownsWorkerPool = options.workerPool === undefined;
    this.#workerPool = options.workerPool ?? WorkerPool.watch(bus);
    this.#recordings = config.recordingsDir
      ? RecordingStorage.forConfig(config.recordingsDir, config.recordingsBucket, log)
      : undefined;
    this.#heartbeat = new EngineHeartbeatSender(bus, () => ({
      engineId: this.engineId,
      calls: [...this.#sessions.keys(), ...[...this.#pending.values()].map((pending) => pending.spec.callId)],
      draining: this.#draining,
    }));
  }

  /** Where carriers reach this engine's media streams, when it runs a media server. */
  get mediaUrl(): string | undefined {
    return this.#mediaUrl;
  }

  /** The voice activity detection calls get: `silero` (behind the energy gate) or `energy`. */
  get voiceActivity(): 'silero' | 'energy' {
    return this.#voiceActivity?.kind ?? 'energy';
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
    this.#heartbeat.start();
    return this;
  }

  /**
   * The call's media connection arrived with `streamToken`: runs the call on `transport` until it ends.
   * Rejects with a StreamTokenError for a token that is malformed, forged, expired, already used or unknown (the
   * transport should refuse the connection).
   */
  attach(streamToken: string, transport: MediaTransport): Promise<CallSummary> {
    const claim = this.claim(streamToken);
    if (!claim.ok) return Promise.reject(new StreamTokenError(claim.reason));
    return claim.run(transport);
  }

  /**
   * Claims the call `streamToken` stands for, spending the token: for a media connection that must finish its own
   * handshake (a carrier's `start`) before it can carry the call.
   */
  claim(streamToken: string): StreamClaim {
    const check = this.#tokens.check(streamToken);
    if (!check.ok) return check;
    const pending = this.#pending.get(streamToken);
    if (!pending) return { ok: false, reason: this.#spent.has(streamToken) ? 'reused' : 'unknown' };
    this.#pending.delete(streamToken);
    clearTimeout(pending.timer);
    pending.bridge?.release();
    this.#spent.spend(streamToken, check.expiresAt);
    let settled = false;
    return {
      ok: true,
      callId: pending.spec.callId,
      run: (transport) => {
        if (settled) return Promise.reject(new Error('this claim has already run or been abandoned'));
        settled = true;
        return this.#run(pending, transport);
      },
      abandon: (reason) => {
        if (settled) return;
        settled = true;
        this.#closeClients(pending);
        this.#publishEnded(pending.spec.callId, reason, 'failed');
        this.#log('call abandoned', { callId: pending.spec.callId, reason }, 'warn');
      },
    };
  }

  async #run(pending: PendingCall, transport: MediaTransport): Promise<CallSummary> {
    // Only a recorded call waits here (to open its file); others start at once.
    const recording = this.#recordings ? await this.#openRecording(pending.spec, this.#recordings) : undefined;
    const session = new CallSession(pending.spec, {
      bus: this.#bus,
      transport,
      clock: this.#clock,
      stt: pending.stt,
      tts: pending.tts,
      llm: pending.llm,
      greetingAudio: pending.greetingAudio,
      voiceActivity: this.#voiceActivity?.create(pending.spec.callId),
      recording,
      // Every line the session logs names its call (docs/architecture.md §19).
      log: childLog(this.#log, { callId: pending.spec.callId }),
    });
    const callId = pending.spec.callId;
    this.#sessions.set(callId, session);
    const run = session.run().finally(() => {
      this.#sessions.delete(callId);
      this.#runs.delete(run);
    });
    this.#runs.add(run);
    return run;
  }

  /** True once a drain has begun: the engine takes no new calls. */
  get draining(): boolean {
    return this.#draining;
  }

  /**
   * Graceful drain (docs/architecture.md §18), what `parley start` does on SIGTERM before `close`: the engine leaves
   * the dispatch queue group (a dispatch already on its way is refused `engine_draining`, and the control plane asks
   * another engine), says so in its heartbeat, ends at once the calls it accepted whose media has not arrived (their
   * carrier is told to hang up by the control plane, and no caller is left ringing into a stopping engine), lets the
   * running calls finish for up to `deadlineMs`, then ends the rest with a closing line. Idempotent.
   */
  drain(deadlineMs: number): Promise<void> {
    this.#draining = true;
    this.#drained ??= this.#drain(deadlineMs);
    return this.#drained;
  }

  async #drain(deadlineMs: number): Promise<void> {
    this.#log('draining', { calls: this.#sessions.size, notAnswered: this.#pending.size, deadlineMs });
    this.#endPending('engine_draining');
    this.#heartbeat.beat();
    const dispatch = this.#dispatch;
    // Drained rather than dropped: dispatches the server already sent are still read, and refused as retryable. A
    // drain cannot finish while the bus is away: then the subscription is simply dropped.
    if (dispatch && !(await settledWithin(dispatch.drain(), DISPATCH_DRAIN_TIMEOUT_MS))) dispatch.unsubscribe();
    await settledWithin(Promise.allSettled([...this.#runs]), deadlineMs);
    const left = [...this.#sessions.values()];
    if (left.length) this.#log('drain deadline: ending the calls left', { calls: left.length }, 'warn');
    await Promise.all(left.map((s) => s.end('engine_shutdown', 'completed', true, DRAIN_CLOSING_LINE)));
    this.#heartbeat.beat();
  }

  async close(): Promise<void> {
    this.#dispatch?.unsubscribe();
    this.#endPending('engine_shutdown');
    await Promise.all([...this.#sessions.values()].map((s) => s.end('engine_shutdown', 'failed', false)));
    this.#heartbeat.stop();
    if (this.#ownsWorkerPool) this.#workerPool.stop();
    await this.#recordings?.close();
    await this.#onClose?.();
  }

  /** Gives up every call accepted whose media has not arrived: its end is published, so its record does not linger. */
  #endPending(reason: string): void {
    for (const [token, pending] of this.#pending) {
      clearTimeout(pending.timer);
      pending.bridge?.release();
      this.#closeClients(pending);
      this.#pending.delete(token);
      this.#publishEnded(pending.spec.callId, reason, 'failed');
      this.#log('call given up before its media arrived', { callId: pending.spec.callId, reason }, 'warn');
    }
  }

  async #accept(message: BusMessage): Promise<void> {
    if (this.#draining) {
      message.respond(
        callCodecs.dispatchReply.encode({
          ok: false,
          code: ENGINE_DRAINING,
          message: 'this engine is shutting down',
          retryable: true,
        }),
      );
      return;
    }
    let spec: CallSpec;
    try {
      spec = callCodecs.spec.decode(message.data);
    } catch (error) {
      message.respond(
        callCodecs.dispatchReply.encode({
          ok: false,
          code: 'bad_message',
          message: (error as Error).message,
          retryable: false,
        }),
      );
      return;
    }
    try {
      const options = {
        language: spec.agent.language,
        mode: spec.agent.sttMode ?? undefined,
        provider: spec.agent.sttProvider ?? undefined,
      };
      const opening = [
        openWorker('stt', () => SttClient.open(this.#bus, spec.callId, options)),
        openWorker('tts', () =>
          TtsClient.open(this.#bus, spec.callId, {
            provider: spec.agent.voiceProvider ?? undefined,
            voiceId: spec.agent.voiceId ?? undefined,
            speed: spec.agent.voiceSpeed,
            language: spec.agent.language,
          }),
        ),
        this.#openLanguageModel(spec),
      ] as const;
      const opened = await Promise.allSettled(opening);
      const failure = opened.find((result) => result.status === 'rejected');
      if (failure) {
        // The streams that did open would otherwise hold their workers until those notice the silence.
        for (const result of opened) if (result.status === 'fulfilled') result.value?.close();
        throw failure.reason;
      }
      const [stt, tts, llm] = await Promise.all(opening);
      if (this.#draining) {
        // The drain began while the streams opened: another engine takes the call.
        for (const client of [stt, tts, llm]) client?.close();
        throw Object.assign(new Error('this engine is shutting down'), { code: ENGINE_DRAINING, retryable: true });
      }
      const mediaTimeoutMs = spec.limits.mediaConnectMs ?? this.#mediaTimeoutMs;
      const { token: streamToken } = this.#tokens.issue(spec.callId, mediaTimeoutMs);
      const abort = new AbortController();
      const greeting = spec.agent.greetingMessage ? fillTemplate(spec.agent.greetingMessage, spec.variables) : '';
      const pending: PendingCall = {
        spec,
        stt,
        tts,
        llm,
        abort,
        greetingAudio: greeting
          ? greetingAudio(this.#bus, spec.agent, greeting, tts, abort.signal, () =>
              this.#log('greeting from cache', { callId: spec.callId }),
            )
          : undefined,
        timer: setTimeout(() => this.#expire(streamToken), mediaTimeoutMs),
      };
      pending.greetingAudio?.catch(() => {}); // a failed pre-synthesis falls back to speaking at answer time
      pending.timer.unref();
      this.#pending.set(streamToken, pending);
      pending.bridge = listenForBridge(this.#bus, spec.callId, (token) => this.claim(token), this.#log);
      message.respond(
        callCodecs.dispatchReply.encode({
          ok: true,
          engineId: this.engineId,
          streamToken,
          ...(this.#mediaUrl && { mediaUrl: this.#mediaUrl }),
        }),
      );
      this.#log('call accepted', { callId: spec.callId });
      // LiveKit mode: no media connection will come with the token; the engine claims the call and joins the room.
      if (spec.livekit) void joinLiveKitRoom(this.claim(streamToken), spec.livekit, this.#log, mediaTimeoutMs);
    } catch (error) {
      const e = error as { code?: string; retryable?: boolean; message?: string };
      this.#log('call refused', { callId: spec.callId, code: e.code, reason: e.message ?? String(error) }, 'warn');
      message.respond(
        callCodecs.dispatchReply.encode({
          ok: false,
          code: e.code ?? 'engine_failed',
          message: e.message ?? String(error),
          retryable: e.retryable ?? true,
        }),
      );
    }
  }

  /**
   * The call's language model stream, when a live llm worker announces a model; undefined (the agent greets, then
   * says it has none) when none does. The engine's own PARLEY_LLM_* play no part: only the workers hold model
   * settings and keys (docs/architecture.md §2).
   */
  async #openLanguageModel(spec: CallSpec): Promise<LlmClient | undefined> {
    if (!(await this.#workerPool.hasLanguageModel())) {
      if (spec.agent.builderMode === 'PROMPT')
        this.#log(
          'no llm worker announces a language model: this PROMPT call will say so',
          { callId: spec.callId },
          'warn',
        );
      return undefined;
    }
    return openWorker('llm', () => LlmClient.open(this.#bus, spec.callId));
  }

  /**
   * The call's recording, asked of storage; none when it cannot be opened (the call goes on unrecorded, and says so
   * in the log). The session owns it from here: only the session finishes it.
   */
  async #openRecording(spec: CallSpec, storage: RecordingStorage): Promise<CallRecording | undefined> {
    try {
      return await openCallRecording(storage, {
        organisationId: spec.organisationId,
        callId: spec.callId,
        agentName: spec.agent.name,
      });
    } catch (error) {
      this.#log('recording unavailable', { callId: spec.callId, error: String(error) }, 'warn');
      return undefined;
    }
  }

  #expire(streamToken: string): void {
    const pending = this.#pending.get(streamToken);
    if (!pending) return;
    this.#pending.delete(streamToken);
    pending.bridge?.release();
    this.#closeClients(pending);
    this.#publishEnded(pending.spec.callId, 'media_never_connected', 'no_answer');
  }

  #publishEnded(callId: string, reason: string, outcome: string): void {
    this.#bus.publish(
      subjects.callEvents(callId),
      callCodecs.event.encode({
        type: 'ended',
        reason,
        outcome,
        durationMs: 0,
        latency: { turns: [] },
        atEpochMs: Date.now(),
      }),
    );
  }

  #closeClients(pending: PendingCall): void {
    pending.abort.abort();
    pending.stt.close();
    pending.tts.close();
    pending.llm?.close();
  }
}

export interface EngineRoleOptions {
  clock?: PacingClock;
  mediaTimeoutMs?: number;
  voiceActivity?: VoiceActivitySource;
  onClose?: () => Promise<void>;
  mediaUrl?: string;
  tokens?: StreamTokens;
  workerPool?: WorkerPool;
}
