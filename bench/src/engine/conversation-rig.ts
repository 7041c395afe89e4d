/**
 * The engine as embedded mode runs it, built only from its public exports: an in-process bus, an STT, an LLM and a
 * TTS worker serving the fixed-latency providers, and an EngineRole with its own pacing clock. Calls are dispatched
 * as the control plane does (a `v1.engine.dispatch` request with a CallSpec), attached to in-memory transports and
 * driven by scripted callers; their events are read off the bus as the control plane would read them.
 */
import { randomBytes } from 'node:crypto';
import {
  EngineRole,
  llmWorker,
  memoryTransport,
  startWorker,
  sttWorker,
  ttsWorker,
  type VoiceActivitySource,
  type WorkerHandle,
} from '@parley/engine';
import { PacingClock } from '@parley/engine/audio';
import { MemoryBus } from '@parley/engine/bus';
import { callCodecs, subjects, type CallSpec, type LatencyReport } from '@parley/engine/protocol';
import type { CallerAudio } from './caller-audio.ts';
import {
  fixedLatencyLlm,
  fixedLatencyStt,
  fixedLatencyTts,
  type FixedLatencies,
  type SttMode,
} from './fixed-latency-providers.ts';
import { ScriptedCaller, type ConversationScript } from './scripted-caller.ts';
import { TickLog } from './tick-log.ts';
import { StampBook, turnKeyIn } from './turn-stamps.ts';

/** How long a dispatch may take, ms: opening three worker streams in process takes a few ms. */
const DISPATCH_TIMEOUT_MS = 10_000;
/** How long a hung-up call may take to publish its end, ms. */
const END_TIMEOUT_MS = 10_000;
/** How the engine names a call the caller hung up: any other end during a run is an incident. */
const HANG_UP_REASON = 'caller_hangup';
/** The agent's endpointing silence, ms: the engine's default for phone calls, set explicitly so the report can say it. */
export const ENDPOINTING_MS = 600;

export interface RigOptions {
  latencies: FixedLatencies;
  stt: SttMode;
  audio: CallerAudio;
  /** Each call's voice activity detector, as the engine role loads it; default the energy gate alone. */
  voiceActivity?: VoiceActivitySource;
  /** Engine log lines other than routine ones (failures, barge-ins: none belong in a healthy run) go here. */
  incident(line: string): void;
}

export interface RigCall {
  readonly callId: string;
  readonly caller: ScriptedCaller;
  /** Hangs up as the caller; resolves with the engine's latency report from the `ended` event. */
  hangUp(): Promise<LatencyReport>;
}

/** Engine log events that are part of a healthy call. */
const ROUTINE_EVENTS = new Set(['call accepted', 'stream opened']);

export class ConversationRig {
  readonly book = new StampBook();
  readonly ticks = new TickLog();
  readonly #bus = new MemoryBus();
  readonly #clock = new PacingClock();
  readonly #workers: WorkerHandle[];
  readonly #engine: EngineRole;
  readonly #options: RigOptions;

  constructor(options: RigOptions) {
    this.#options = options;
    const log = (event: string, detail?: object) => {
      if (ROUTINE_EVENTS.has(event)) return;
      options.incident(`${event} ${JSON.stringify(detail ?? {})}`);
    };
    this.#workers = [
      startWorker(this.#bus, sttWorker([fixedLatencyStt(options.latencies, options.stt, this.book)]), log),
      startWorker(this.#bus, llmWorker([fixedLatencyLlm(options.latencies, this.book)]), log),
      startWorker(this.#bus, ttsWorker([fixedLatencyTts(options.latencies, this.book)]), log),
    ];
    // The engine only checks that an LLM is configured; the LLM worker serves the fixed-latency model.
    const config = {
      llm: { baseUrl: 'http://bench.invalid', model: 'fixed-latency' },
      sttProvider: 'bench-stt',
      ttsProvider: 'bench-tts',
    };
    this.#engine = new EngineRole(config, this.#bus, log, {
      clock: this.#clock,
      voiceActivity: options.voiceActivity,
    }).start();
    this.#clock.attach(this.ticks);
  }

  get activeCalls(): number {
    return this.#engine.activeCalls;
  }

  /** Dispatches a call, attaches its transport and starts its caller. */
  async startCall(script: ConversationScript): Promise<RigCall> {
    const spec = benchCallSpec();
    const events = this.#bus.subscribe(subjects.callEvents(spec.callId));
    const answer = callCodecs.dispatchReply.decode(
      (await this.#bus.request(subjects.dispatch(), callCodecs.spec.encode(spec), { timeoutMs: DISPATCH_TIMEOUT_MS }))
        .data,
    );
    if (!answer.ok) {
      events.unsubscribe();
      throw new Error(`the engine refused the call: ${answer.code}: ${answer.message}`);
    }
    const { transport, caller } = memoryTransport();
    const scripted = new ScriptedCaller((frame) => caller.speak(frame), script, this.#options.audio, this.book);
    caller.onAudio = () => scripted.agentFrame();

    let resolveEnded!: (report: LatencyReport) => void;
    const ended = new Promise<LatencyReport>((resolve) => {
      resolveEnded = resolve;
    });
    void (async () => {
      for await (const message of events) {
        let event;
        try {
          event = callCodecs.event.decode(message.data);
        } catch (error) {
          this.#options.incident(`call ${spec.callId}: undecodable event: ${String(error)}`);
          continue;
        }
        if (event.type === 'transcript' && event.speaker === 'user') {
          const key = turnKeyIn(event.text);
          if (key) scripted.userTurn(key);
        } else if (event.type === 'ended') {
          if (event.reason !== HANG_UP_REASON)
            this.#options.incident(`call ${spec.callId} ended by itself: ${event.reason} (${event.outcome})`);
          resolveEnded(event.latency);
          events.unsubscribe();
        }
      }
    })();
    const summary = this.#engine.attach(answer.streamToken, transport);
    summary.catch((error: unknown) => this.#options.incident(`call ${spec.callId} failed: ${String(error)}`));
    scripted.start();

    return {
      callId: spec.callId,
      caller: scripted,
      hangUp: async () => {
        scripted.stop();
        caller.hangup('bench over');
        let timer: NodeJS.Timeout | undefined;
        const timeout = new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`call ${spec.callId} did not end within ${END_TIMEOUT_MS} ms`)),
            END_TIMEOUT_MS,
          );
        });
        try {
          return await Promise.race([ended, timeout]);
        } finally {
          clearTimeout(timer);
          events.unsubscribe();
        }
      },
    };
  }

  async close(): Promise<void> {
    await this.#engine.close();
    for (const worker of this.#workers) await worker.stop();
    this.#clock.close();
    await this.#bus.close();
  }
}

/** An inbound PROMPT agent with no greeting (the first words are the caller's) and limits no run reaches. */
export function benchCallSpec(): CallSpec {
  return {
    callId: `bench${randomBytes(8).toString('hex')}`,
    organisationId: 'bench',
    direction: 'INBOUND',
    participant: {},
    variables: {},
    limits: { maxDurationMs: 3_600_000, inactivityMs: 600_000 },
    agent: {
      id: 'bench-agent',
      name: 'Bench',
      agentType: 'VOICE',
      builderMode: 'PROMPT',
      agentIdentity: 'You answer in one short sentence.',
      greetingMessage: null,
      language: 'en-US',
      customVariables: {},
      functionTools: [],
      turn: { endpointingMs: ENDPOINTING_MS },
    },
  };
}
