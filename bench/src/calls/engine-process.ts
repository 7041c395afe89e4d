/**
 * Entry of the engine process of one run: the engine role as `parley start` runs it in scale-out mode (its media
 * websocket server, voice activity per the product default, the real bus: NATS), with an STT, an LLM and a TTS
 * worker serving the load test's fixed-latency providers on the same connection. Everything it does goes through
 * the engine's public exports. It reports its own CPU, event loop and memory when asked, and each stream's
 * counters as the media server logs them at the stream's end. Ctrl-C is ignored: the parent stops it in order.
 */
import {
  llmWorker,
  startEngineRole,
  startWorker,
  sttWorker,
  ttsWorker,
  type EngineRole,
  type WorkerHandle,
} from '@parley/engine';
import { namespacedBus, NatsBus, type Bus } from '@parley/engine/bus';
import { callProviders, type LatenessBook } from './call-providers.ts';
import type { EngineStreamEnd, FromEngine, ToEngine } from './messages.ts';
import { processReader } from './process-reading.ts';

/** Engine log events that belong to healthy calls; any other is an incident the report lists. */
const ROUTINE_EVENTS = new Set([
  'worker started',
  'voice activity',
  'media server listening',
  'call accepted',
  'stream opened',
  'media stream started',
  'media stream ended',
  'webrtc call connected',
  'webrtc call ended',
  'barge-in',
  'barge-in paused',
  'barge-in resumed',
]);

let bus: Bus | undefined;
let role: EngineRole | undefined;
let book: LatenessBook | undefined;
const workers: WorkerHandle[] = [];
const streams: EngineStreamEnd[] = [];
const incidents: Record<string, { count: number; example: string }> = {};
const reading = processReader();
let stopping = false;

function send(message: FromEngine): Promise<void> {
  return new Promise((resolve) => {
    if (!process.connected) return resolve();
    process.send!(message, undefined, {}, () => resolve());
  });
}

function log(event: string, detail?: object): void {
  if (event === 'media stream ended') {
    const { callId, carrier, stats } = detail as {
      callId: string;
      carrier: string;
      stats: Omit<EngineStreamEnd, 'callId' | 'carrier'>;
    };
    streams.push({
      callId,
      carrier,
      media: stats.media,
      droppedFrames: stats.droppedFrames,
      sentPayloads: stats.sentPayloads,
      droppedPayloads: stats.droppedPayloads,
      malformed: stats.malformed,
      clears: stats.clears,
    });
  }
  if (ROUTINE_EVENTS.has(event)) return;
  const entry = (incidents[event] ??= { count: 0, example: JSON.stringify(detail ?? {}).slice(0, 300) });
  entry.count += 1;
}

async function start(natsUrl: string, namespace: string): Promise<void> {
  try {
    bus = namespacedBus(await NatsBus.connect(natsUrl, { name: 'parley-bench-engine' }), namespace);
    const providers = callProviders();
    book = providers.book;
    workers.push(
      startWorker(bus, sttWorker([providers.stt]), log),
      startWorker(bus, llmWorker([providers.llm]), log),
      startWorker(bus, ttsWorker([providers.tts]), log),
    );
    // The engine only checks that an LLM is configured; the LLM worker serves the fixed-latency model.
    role = await startEngineRole(
      {
        llm: { baseUrl: 'http://bench.invalid', model: 'fixed-latency' },
        sttProvider: providers.stt.name,
        ttsProvider: providers.tts.name,
        media: { port: 0, host: '127.0.0.1' },
      },
      bus,
      log,
    );
    await send({ type: 'ready', vad: role.voiceActivity });
  } catch (error) {
    await send({ type: 'failed', message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    process.exit(1);
  }
}

async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  await role?.close();
  for (const worker of workers) await worker.stop();
  await bus?.drain().catch(() => {});
  await send({ type: 'stopped' });
  // A normal exit, so `--cpu-prof` writes its profile.
  process.exit(0);
}

process.on('SIGINT', () => {});
process.on('disconnect', () => void stop());
process.on('message', (message: ToEngine) => {
  if (message.type === 'start') void start(message.natsUrl, message.namespace);
  else if (message.type === 'read')
    void send({ type: 'read', reading: reading(), activeCalls: role?.activeCalls ?? 0 });
  else if (message.type === 'streams') {
    void send({
      type: 'streams',
      streams: streams.splice(0),
      incidents,
      llmLateMs: book?.llmLateMs ?? [],
      ttsLateMs: book?.ttsLateMs ?? [],
    });
  } else void stop();
});
