/**
 * `npm run bench -- webrtc`: concurrent browser calls against one engine (docs/architecture.md §16). The engine
 * runs in its own process with the calls bench's fixed-latency fake workers (calls/engine-process.ts), over NATS
 * (NATS_URL, default nats://127.0.0.1:4222); the browsers are werift peers in this process, each streaming 48 kHz
 * Opus of the calls bench's flite sentence and decoding the agent's Opus — so the engine's figures include ICE,
 * DTLS-SRTP and Opus both ways. One run at `--calls` concurrent calls: warm-up, a measured window, hang-ups; the
 * report gives the calls bench's caller-side figures and gates for that level (no stepping: this is one row of
 * the calls report, for browsers).
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { namespacedBus, NatsBus } from '@parley/engine/bus';
import { resample } from '@parley/engine/audio';
import { machineFacts } from '../machine.ts';
import { percentile } from '../percentiles.ts';
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, type ExitCode, type Suite, type SuiteContext } from '../suite.ts';
import { formatTable } from '../table.ts';
import { MIN_ANSWERED_SHARE } from '../calls/call-metrics.ts';
import { ChildLink } from '../calls/child-link.ts';
import { ENGINE_CPU_LIMIT, GAP_P90_LIMIT_MS } from '../calls/gates.ts';
import type { FromEngine, ProcessReading, ToEngine } from '../calls/messages.ts';
import { speechClip } from '../calls/speech-clip.ts';
import { BrowserLine } from './browser-line.ts';

const ENGINE_ENTRY = fileURLToPath(new URL('../calls/engine-process.ts', import.meta.url));
/** Loading the engine through tsx and connecting to NATS: seconds when cold. */
const ENGINE_START_TIMEOUT_MS = 60_000;
const READ_TIMEOUT_MS = 10_000;
/** Calls are placed this far apart, ms: a burst of arrivals, as in the calls bench. */
const CALL_SPACING_MS = 10;
const DEFAULTS = { calls: 20, warmupSeconds: 5, windowSeconds: 20 } as const;
/** Most calls one run takes: the werift peers share this process with the report. */
const MAX_CALLS = 500;

export const webrtcSuite: Suite = {
  name: 'webrtc',
  summary:
    'concurrent browser calls (werift peers, Opus, DTLS-SRTP) against one engine: caller-side figures and the calls gates (needs NATS)',
  options: {
    calls: { type: 'string', valueName: '<n>', description: `concurrent calls (default ${DEFAULTS.calls})` },
    warmup: {
      type: 'string',
      valueName: '<s>',
      description: `seconds after the last call is up, before the window (default ${DEFAULTS.warmupSeconds})`,
    },
    window: { type: 'string', valueName: '<s>', description: `measured seconds (default ${DEFAULTS.windowSeconds})` },
  },
  run: runWebrtc,
};

function positive(value: string | boolean | undefined, fallback: number, max: number): number | undefined {
  if (value === undefined) return fallback;
  const n = Number(value);
  return Number.isInteger(n) && n >= 1 && n <= max ? n : undefined;
}

async function runWebrtc(context: SuiteContext): Promise<ExitCode> {
  const calls = positive(context.extra.calls, DEFAULTS.calls, MAX_CALLS);
  const warmupSeconds = positive(context.extra.warmup, DEFAULTS.warmupSeconds, 600);
  const windowSeconds = positive(context.extra.window, DEFAULTS.windowSeconds, 3600);
  if (calls === undefined || warmupSeconds === undefined || windowSeconds === undefined) {
    context.log(`--calls takes 1–${MAX_CALLS}, --warmup and --window whole seconds`);
    return EXIT_USAGE;
  }
  const natsUrl = process.env.NATS_URL || 'nats://127.0.0.1:4222';
  const namespace = `bench-webrtc-${randomBytes(4).toString('hex')}`;
  const clip = await speechClip();
  const clip16k = resample(clip.samples, clip.sampleRate, 16_000);
  const engine = new ChildLink<ToEngine, FromEngine>('engine process', ENGINE_ENTRY);
  const bus = namespacedBus(await NatsBus.connect(natsUrl, { name: 'parley-bench-webrtc' }), namespace);
  const lines: BrowserLine[] = [];
  const failures: string[] = [];
  try {
    const { vad } = await engine.request({ type: 'start', natsUrl, namespace }, 'ready', ENGINE_START_TIMEOUT_MS);
    context.log(`engine ready (VAD ${vad}); placing ${calls} browser calls…`);
    const opening: Promise<void>[] = [];
    for (let i = 0; i < calls && !context.signal.aborted; i++) {
      opening.push(
        BrowserLine.open(bus, clip16k).then(
          (line) => void lines.push(line),
          (error: unknown) => void failures.push(String(error)),
        ),
      );
      await sleep(CALL_SPACING_MS);
    }
    await Promise.all(opening);
    context.log(`${lines.length}/${calls} calls up; warm-up ${warmupSeconds} s, window ${windowSeconds} s…`);
    await sleep(warmupSeconds * 1000, undefined, { signal: context.signal }).catch(() => {});
    const before = (await engine.request({ type: 'read' }, 'read', READ_TIMEOUT_MS)).reading;
    const opened = performance.now();
    for (const line of lines) line.openWindow(opened);
    await sleep(windowSeconds * 1000, undefined, { signal: context.signal }).catch(() => {});
    const closed = performance.now();
    for (const line of lines) line.closeWindow(closed);
    const after = (await engine.request({ type: 'read' }, 'read', READ_TIMEOUT_MS)).reading;
    const { activeCalls } = await engine.request({ type: 'read' }, 'read', READ_TIMEOUT_MS);
    const { incidents } = await engine.request({ type: 'streams' }, 'streams', READ_TIMEOUT_MS);
    context.out(report(calls, lines, failures, before, after, activeCalls, incidents));
    return EXIT_OK;
  } catch (error) {
    context.log(`webrtc bench failed: ${error instanceof Error ? error.message : String(error)}`);
    return EXIT_FAILED;
  } finally {
    await Promise.all(lines.map((line) => line.hangUp().catch(() => {})));
    await engine.close({ type: 'stop' });
    await bus.drain().catch(() => {});
  }
}

function sorted(values: number[]): Float64Array {
  return Float64Array.from(values).sort();
}

const ms = (value: number) => (Number.isFinite(value) ? `${value.toFixed(0)} ms` : '—');

function report(
  calls: number,
  lines: BrowserLine[],
  failures: string[],
  before: ProcessReading,
  after: ProcessReading,
  activeCalls: number,
  incidents: Record<string, { count: number; example: string }>,
): string {
  const windows = lines.map((line) => line.meter.result());
  const turns = sorted(windows.flatMap((w) => w.turnMs));
  const gaps = sorted(windows.flatMap((w) => w.gapsMs));
  const greetings = sorted(windows.flatMap((w) => (w.greetingMs === undefined ? [] : [w.greetingMs])));
  const connects = sorted(lines.map((line) => line.connectMs));
  const barges = sorted(lines.flatMap((line) => line.barge.stopMs));
  const notStopped = lines.reduce((n, line) => n + line.barge.notStopped, 0);
  const utterances = windows.reduce((n, w) => n + w.utterances, 0);
  const answered = windows.reduce((n, w) => n + w.answered, 0);
  const turnShare = utterances === 0 ? Number.NaN : answered / utterances;
  const cpuShare = (after.cpuMicros - before.cpuMicros) / 1000 / (after.at - before.at);
  const gapP90 = percentile(gaps, 90);
  const machine = machineFacts();
  const gates = [
    ['calls up', `${lines.length}/${calls}`, 'all', lines.length === calls],
    [
      'turn share',
      `${(turnShare * 100).toFixed(1)} %`,
      `≥ ${MIN_ANSWERED_SHARE * 100} %`,
      turnShare >= MIN_ANSWERED_SHARE,
    ],
    ['audible-gap p90', `${gapP90.toFixed(2)} ms`, `< ${GAP_P90_LIMIT_MS} ms`, gapP90 < GAP_P90_LIMIT_MS],
    [
      'engine CPU',
      `${(cpuShare * 100).toFixed(0)} % of a core`,
      `< ${ENGINE_CPU_LIMIT * 100} %`,
      cpuShare < ENGINE_CPU_LIMIT,
    ],
  ] as const;
  const pct = (values: Float64Array) => [50, 95, 99].map((p) => ms(percentile(values, p))).join(' / ');
  return [
    `# webrtc bench: ${calls} concurrent browser calls`,
    '',
    `Machine: ${machine.cpuModel} × ${machine.cores}, Node ${machine.node}, load average ${machine.loadAverage1m}. Engine in its own process; the werift browsers in the bench's.`,
    '',
    formatTable(
      [
        ['gate', 'value', 'limit', 'pass'],
        ...gates.map(([gate, value, limit, pass]) => [gate, value, limit, pass ? 'yes' : 'NO']),
      ],
      ['left', 'right', 'right', 'left'],
    ),
    '',
    formatTable(
      [
        ['figure (caller side)', 'p50 / p95 / p99'],
        ['dispatch → connected (ICE + DTLS)', pct(connects)],
        ['greeting (connected → first audio)', pct(greetings)],
        ['turn (end of speech → reply audio)', pct(turns)],
        ['barge-in (speech onset → agent audio stops)', pct(barges)],
        ['audible gap', pct(gaps)],
      ],
      ['left', 'right'],
    ),
    '',
    `Utterances ${utterances}, answered ${answered}; barge-ins ${barges.length}, overlaps talked through ${notStopped}. ` +
      `Engine: ${activeCalls} calls live at the end of the window, event-loop delay p99 ${after.loopDelayP99Ms.toFixed(1)} ms, ` +
      `RSS ${(after.rssBytes / 2 ** 20).toFixed(0)} MiB.`,
    ...(failures.length ? ['', `Calls that failed to connect: ${failures.length} (first: ${failures[0]})`] : []),
    ...Object.entries(incidents).map(
      ([event, { count, example }]) => `Engine incident "${event}" ×${count}, for example ${example}`,
    ),
  ].join('\n');
}
