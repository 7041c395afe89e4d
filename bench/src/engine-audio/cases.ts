/**
 * What the engine-audio suite measures: the per-frame audio work of one call, each case processing the next 20 ms
 * frame of a realistic signal through the public @parley/engine/audio API, as a live call would (stateful
 * resamplers and codecs, reused across frames), beside a bare μ-law decode loop that nothing can make cheaper.
 */
import {
  OpusDecoder,
  OpusEncoder,
  Resampler,
  TELEPHONE_BAND_HZ,
  decodeMulaw,
  encodeMulaw,
  resample,
  sineWave,
  type OpusBackendName,
} from '@parley/engine/audio';

export interface FrameCase {
  name: string;
  /** What one step does, for the report. */
  work: string;
  /** The reference every ratio is taken against. */
  baseline?: boolean;
  /** Processes the next frame; returns a number taken from the output so the work cannot be optimised away. */
  step(): number;
  close(): void;
}

/** Frames of test signal cycled through: 1 s, so each case walks a realistic working set, not one hot frame. */
const SIGNAL_FRAMES = 50;

/**
 * A speech-like test signal: three partials of a voice around 150 Hz with formant-ish weights, plus noise, at
 * about −12 dBFS; pure tones would flatter codecs that love stationary signals.
 */
function speechLike(rate: number, seconds: number): Int16Array {
  const length = rate * seconds;
  const out = new Int16Array(length);
  const parts = [
    sineWave(150, rate, length, 4000),
    sineWave(450, rate, length, 3000),
    sineWave(2300, rate, length, 1200),
  ];
  let seed = 12345;
  for (let i = 0; i < length; i++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    out[i] = parts[0]![i]! + parts[1]![i]! + parts[2]![i]! + ((seed % 1001) - 500);
  }
  return out;
}

function frames(signal: Int16Array, frameSamples: number): Int16Array[] {
  return Array.from({ length: SIGNAL_FRAMES }, (_, f) => signal.slice(f * frameSamples, (f + 1) * frameSamples));
}

/** Cycles through `items`, one per call. */
export function cycle<T>(items: readonly T[]): () => T {
  let next = 0;
  return () => {
    const item = items[next]!;
    next = next + 1 === items.length ? 0 : next + 1;
    return item;
  };
}

/**
 * The baseline every per-frame cost is a multiple of: the table lookup G.711 decoding comes down to, written out
 * inline with no call or allocation.
 */
export function ulawBaselineCase(ulawFrames: readonly Uint8Array[]): FrameCase {
  const table = decodeMulaw(Uint8Array.from({ length: 256 }, (_, i) => i));
  const out = new Int16Array(160);
  const next = cycle(ulawFrames);
  return {
    name: 'baseline: μ-law decode loop',
    work: '160 B → 160 samples, inline table loop',
    baseline: true,
    step: () => {
      const codes = next();
      for (let i = 0; i < 160; i++) out[i] = table[codes[i]!]!;
      return out[7]!;
    },
    close: () => {},
  };
}

export function createCases(opusBackends: readonly OpusBackendName[]): FrameCase[] {
  const speech16k = speechLike(16_000, 1);
  const speech8k = resample(speech16k, 16_000, 8000);
  const speech48k = resample(speech16k, 16_000, 48_000);
  const ulawFrames = frames(speech8k, 160).map((frame) => encodeMulaw(frame));
  const engineFrames = frames(speech16k, 320);
  const opusFrames = frames(speech48k, 960);

  const cases: FrameCase[] = [ulawBaselineCase(ulawFrames)];

  // Carrier transports tell the resampler their audio is telephone-band; the full-band row shows what that saves.
  for (const [label, options] of [
    ['', { sourceBandHz: TELEPHONE_BAND_HZ }],
    [' (full-band filter)', {}],
  ] as const) {
    const upsampler = new Resampler(8000, 16_000, options);
    const nextInbound = cycle(ulawFrames);
    cases.push({
      name: `inbound: μ-law decode + 8→16 kHz${label}`,
      work: '160 B → 320 samples (decodeMulaw, Resampler.push)',
      step: () => upsampler.push(decodeMulaw(nextInbound())).length,
      close: () => upsampler.reset(),
    });
  }

  const downsampler = new Resampler(16_000, 8000);
  const nextOutbound = cycle(engineFrames);
  cases.push({
    name: 'outbound: 16→8 kHz + μ-law encode',
    work: '320 samples → 160 B (Resampler.push, encodeMulaw)',
    step: () => encodeMulaw(downsampler.push(nextOutbound())).length,
    close: () => downsampler.reset(),
  });

  for (const backend of opusBackends) {
    const encoder = new OpusEncoder(48_000, { backend });
    const nextPcm = cycle(opusFrames);
    cases.push({
      name: `Opus encode 48 kHz (${backend})`,
      work: '960 samples → 1 packet, 32 kbit/s',
      step: () => encoder.encode(nextPcm()).length,
      close: () => encoder.close(),
    });
    const packetEncoder = new OpusEncoder(48_000, { backend });
    const packets = opusFrames.map((frame) => packetEncoder.encode(frame));
    packetEncoder.close();
    const decoder = new OpusDecoder(48_000, { backend });
    const nextPacket = cycle(packets);
    cases.push({
      name: `Opus decode 48 kHz (${backend})`,
      work: '1 packet → 960 samples',
      step: () => decoder.decode(nextPacket()).length,
      close: () => decoder.close(),
    });
  }
  return cases;
}
