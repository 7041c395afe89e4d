/**
 * A call on an in-process bus with real workers, real worker streams, the real pacing clock and an in-memory
 * transport whose "caller" speaks in real time. Providers are supplied by each test.
 */
import { randomBytes } from 'node:crypto';
import { ENGINE_FRAME_SAMPLES } from '../../src/audio/format.ts';
import { PacingClock } from '../../src/audio/pacing-clock.ts';
import { MemoryBus, type Bus } from '../../src/bus/index.ts';
import { callCodecs, subjects, type CallEvent, type CallSpec } from '../../src/protocol/index.ts';
import type { LlmProvider } from '../../src/providers/llm-provider.ts';
import type { SttProvider } from '../../src/providers/stt-provider.ts';
import type { TtsProvider } from '../../src/providers/tts-provider.ts';
import { CallSession, type CallSummary } from '../../src/session/call-session.ts';
import type { FrameClassifier } from '../../src/session/energy-vad.ts';
import { memoryTransport, type MemoryCaller } from '../../src/transports/memory/memory-transport.ts';
import { LlmClient } from '../../src/workers/client/llm-client.ts';
import { SttClient } from '../../src/workers/client/stt-client.ts';
import { TtsClient } from '../../src/workers/client/tts-client.ts';
import { llmWorker } from '../../src/workers/llm/llm-worker.ts';
import { sttWorker } from '../../src/workers/stt/stt-worker.ts';
import { ttsWorker } from '../../src/workers/tts/tts-worker.ts';
import { startWorker, type WorkerHandle } from '../../src/workers/worker-host.ts';

export type AgentOverrides = Partial<CallSpec['agent']>;

export function callSpec(
  agent: AgentOverrides = {},
  limits: Partial<CallSpec['limits']> = {},
  direction: CallSpec['direction'] = 'OUTBOUND',
): CallSpec {
  return {
    callId: randomBytes(12).toString('hex'),
    organisationId: 'org',
    direction,
    participant: { name: 'Ravi' },
    variables: { customer: 'Ravi' },
    limits: { maxDurationMs: 60_000, inactivityMs: 30_000, ...limits },
    agent: {
      id: 'agent',
      name: 'Maya',
      agentType: 'VOICE',
      builderMode: 'PROMPT',
      agentIdentity: 'You are Maya.',
      agentTask: 'Confirm the appointment.',
      greetingMessage: 'Hi {{customer}}, this is Maya.',
      language: 'en-US',
      customVariables: {},
      functionTools: [],
      ...agent,
    },
  };
}

export interface RunningCall {
  session: CallSession;
  /** The workers serving the call: TTS first, then the STT workers, then the LLM worker. */
  workers: WorkerHandle[];
  /** Failovers of the call's STT stream so far. */
  sttFailovers(): number;
  caller: MemoryCaller;
  events: CallEvent[];
  ended: Promise<CallSummary>;
  /** The caller talks: `ms` of a loud tone, one frame every 20 ms. */
  speak(ms: number): Promise<void>;
  /** The caller is silent for `ms`, in real time. */
  silence(ms: number): Promise<void>;
  /** The caller sends `audio` (16 kHz PCM16), one frame every 20 ms. */
  play(audio: Int16Array): Promise<void>;
  /** Resolves when an event matching `predicate` has been published. */
  waitFor(predicate: (event: CallEvent) => boolean, timeoutMs?: number): Promise<CallEvent>;
  close(): Promise<void>;
}

export interface CallOptions {
  echoes?: boolean;
  /** Buses for the call's "processes": the session's, then one per worker; default one in-process bus for all. */
  connect?: () => Promise<Bus>;
  /** STT workers to start (each on its own bus connection), default 1. */
  sttWorkers?: number;
  /** The call's voice activity detector; default the session's (the energy gate alone). */
  voiceActivity?: FrameClassifier;
}

export async function startCall(
  spec: CallSpec,
  providers: { stt: SttProvider | (() => SttProvider); tts: TtsProvider; llm?: LlmProvider },
  options: CallOptions = {},
): Promise<RunningCall> {
  const memory = new MemoryBus();
  const connect = options.connect ?? (async () => memory);
  const bus = await connect();
  const stt = () => (typeof providers.stt === 'function' ? providers.stt() : providers.stt);
  const workers: WorkerHandle[] = [startWorker(await connect(), ttsWorker([providers.tts]))];
  for (let i = 0; i < (options.sttWorkers ?? 1); i += 1) workers.push(startWorker(await connect(), sttWorker([stt()])));
  if (providers.llm) workers.push(startWorker(await connect(), llmWorker([providers.llm])));
  const events: CallEvent[] = [];
  const listeners = new Set<() => void>();
  const subscription = bus.subscribe(subjects.callEvents(spec.callId));
  void (async () => {
    for await (const message of subscription) {
      events.push(callCodecs.event.decode(message.data));
      for (const listener of listeners) listener();
    }
  })();
  const clock = new PacingClock();
  const { transport, caller } = memoryTransport({ echoes: options.echoes });
  const [sttClient, ttsClient, llmClient] = await Promise.all([
    SttClient.open(bus, spec.callId, { language: spec.agent.language }),
    TtsClient.open(bus, spec.callId),
    providers.llm ? LlmClient.open(bus, spec.callId) : Promise.resolve(undefined),
  ]);
  const session = new CallSession(spec, {
    bus,
    transport,
    clock,
    stt: sttClient,
    tts: ttsClient,
    llm: llmClient,
    voiceActivity: options.voiceActivity,
  });
  const ended = session.run();
  const frames = async (ms: number, make: () => Int16Array) => {
    const started = performance.now();
    for (let i = 0; i < ms / 20; i += 1) {
      caller.speak(make());
      const due = started + (i + 1) * 20;
      await new Promise((r) => setTimeout(r, Math.max(0, due - performance.now())));
    }
  };
  let phase = 0;
  return {
    session,
    workers,
    sttFailovers: () => sttClient.failovers,
    caller,
    events,
    ended,
    speak: (ms) =>
      frames(ms, () =>
        Int16Array.from({ length: ENGINE_FRAME_SAMPLES }, () => Math.round(8000 * Math.sin(phase++ * 0.15))),
      ),
    silence: (ms) => frames(ms, () => new Int16Array(ENGINE_FRAME_SAMPLES)),
    play: (audio) => {
      let offset = 0;
      return frames(Math.ceil(audio.length / ENGINE_FRAME_SAMPLES) * 20, () => {
        const frame = new Int16Array(ENGINE_FRAME_SAMPLES);
        frame.set(audio.subarray(offset, offset + ENGINE_FRAME_SAMPLES));
        offset += ENGINE_FRAME_SAMPLES;
        return frame;
      });
    },
    waitFor(predicate, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = events.find(predicate);
          if (!found) return;
          listeners.delete(check);
          clearTimeout(timer);
          resolve(found);
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(
            new Error(
              `no matching call event within ${timeoutMs} ms; saw ${events.map((e) => (e.type === 'state' ? e.state : e.type)).join(', ')}`,
            ),
          );
        }, timeoutMs);
        listeners.add(check);
        check();
      });
    },
    async close() {
      await session.end('test_over', 'completed', false);
      for (const worker of workers) await worker.stop();
      clock.close();
      await memory.close();
    },
  };
}
