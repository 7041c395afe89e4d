/**
 * `npm run bench -- engine-audio`: the per-frame CPU cost of the engine's audio path, in µs per 20 ms frame,
 * beside a plain μ-law decode loop measured in the same run: inbound carrier audio (μ-law decode + 8→16 kHz, with
 * the telephone-band filter that carrier transports use and with the full-band one), outbound (16→8 kHz + μ-law
 * encode), and Opus encode and decode of a 48 kHz frame, on the native addon and on the WebAssembly fallback.
 * Everything runs in this process, on one core, one case at a time.
 */
import { opusBackend, type OpusBackendName } from '@parley/engine/audio';
import { machineFacts } from '../machine.ts';
import { EXIT_INTERRUPTED, EXIT_OK, type ExitCode, type Suite, type SuiteContext } from '../suite.ts';
import { createCases } from './cases.ts';
import { measureCases } from './measure.ts';
import { buildReport, formatReport } from './report.ts';

/** Unmeasured seconds per case first: V8 optimises the hot loops within the first few thousand frames. */
export const WARMUP_SECONDS = 1;

export const engineAudioSuite: Suite = {
  name: 'engine-audio',
  summary: 'µs per 20 ms frame of G.711 + resampling and Opus, vs a plain μ-law decode loop (no services needed)',
  options: {
    'native-only': {
      type: 'boolean',
      description: 'measure Opus on the native addon only, not on the wasm fallback too',
    },
  },
  run: runEngineAudio,
};

async function runEngineAudio(context: SuiteContext): Promise<ExitCode> {
  const machine = machineFacts();
  const backends: OpusBackendName[] =
    opusBackend() === 'native' && context.extra['native-only'] !== true ? ['native', 'wasm'] : [opusBackend()];
  const cases = createCases(backends);
  const durationSeconds = context.options.durationSeconds;
  context.log(`measuring ${cases.length} cases, ${WARMUP_SECONDS + durationSeconds} s each…`);
  try {
    const timings = await measureCases(cases, {
      durationSeconds,
      warmupSeconds: WARMUP_SECONDS,
      signal: context.signal,
    });
    if (context.signal.aborted) return EXIT_INTERRUPTED;
    const report = buildReport(
      machine,
      { durationSeconds, warmupSeconds: WARMUP_SECONDS, opusBackends: backends },
      timings,
    );
    context.out(formatReport(report));
    if (context.options.json) context.out(JSON.stringify(report));
    return EXIT_OK;
  } finally {
    for (const frameCase of cases) frameCase.close();
  }
}
