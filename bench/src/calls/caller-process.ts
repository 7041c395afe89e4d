/**
 * Entry of the callers' process: the carriers' side of every call of a run (caller-line.ts), in a process of its
 * own so that its CPU is measured apart from the engine's. It makes the caller's recording once, and for each run
 * places the calls the parent asks for on that run's bus namespace, opens and closes the measured window, and hangs
 * up. Ctrl-C is ignored: the parent hangs up first, then tells it to quit.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { namespacedBus, NatsBus, type Bus } from '@parley/engine/bus';
import { CallerLine } from './caller-line.ts';
import type { CallPlan, FromCaller, ToCaller } from './messages.ts';
import { processReader } from './process-reading.ts';
import { speechClip, type SpeechClip } from './speech-clip.ts';

const reading = processReader();
let nats: Bus | undefined;
let clip: SpeechClip | undefined;
let lines: CallerLine[] = [];

function send(message: FromCaller): Promise<void> {
  return new Promise((resolve) => {
    if (!process.connected) return resolve();
    process.send!(message, undefined, {}, () => resolve());
  });
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function prepare(natsUrl: string): Promise<void> {
  try {
    clip = await speechClip();
    nats = await NatsBus.connect(natsUrl, { name: 'parley-bench-callers' });
    await send({
      type: 'prepared',
      clipMs: (clip.samples.length * 1000) / clip.sampleRate,
      longestPauseMs: clip.longestPauseMs,
    });
  } catch (error) {
    await send({ type: 'failed', message: describe(error) });
  }
}

async function start(plan: CallPlan): Promise<void> {
  const bus = namespacedBus(nats!, plan.namespace);
  const failures: string[] = [];
  const opening: Promise<void>[] = [];
  for (let c = 0; c < plan.calls; c++) {
    const carrier = plan.carriers[c % plan.carriers.length]!;
    opening.push(
      CallerLine.open(bus, carrier, plan.ringMs, clip!).then(
        (line) => void lines.push(line),
        (error: unknown) => void failures.push(`${carrier}: ${describe(error)}`),
      ),
    );
    await sleep(plan.spacingMs);
  }
  await Promise.all(opening);
  await send({ type: 'started', connected: lines.length, failures });
}

async function hangUp(): Promise<void> {
  const ending = lines;
  lines = [];
  const streams = await Promise.all(ending.map((line) => line.hangUp()));
  await send({ type: 'hung-up', streams });
}

process.on('SIGINT', () => {});
process.on('disconnect', () => process.exit(0));
process.on('message', (message: ToCaller) => {
  switch (message.type) {
    case 'prepare':
      return void prepare(message.natsUrl);
    case 'start':
      return void start(message.plan);
    case 'open-window': {
      const now = performance.now();
      for (const line of lines) line.meter.openWindow(now);
      return void send({ type: 'window-opened' });
    }
    case 'close-window': {
      const now = performance.now();
      for (const line of lines) line.meter.closeWindow(now);
      return void send({
        type: 'window',
        calls: lines.map((line) => ({ callId: line.callId, carrier: line.carrier, window: line.meter.result() })),
      });
    }
    case 'read':
      return void send({ type: 'read', reading: reading() });
    case 'hangup':
      return void hangUp();
    case 'quit':
      void (async () => {
        await nats?.drain().catch(() => {});
        await send({ type: 'quit' });
        process.exit(0);
      })();
  }
});
