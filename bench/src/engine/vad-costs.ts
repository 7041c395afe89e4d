/**
 * What Silero behind the energy gate costs per 20 ms frame of a caller's speech, in µs of the process's CPU (the
 * model's inference runs in the runtime's own thread, so wall-clock time of the frame path would miss it):
 *
 * - as calls run it: the gate on every frame, the model until a stretch is confirmed and then a few windows a second;
 * - the model on every window (what "Silero while the gate is open" would cost without the confirmation rule);
 * - the gate alone, over the same frames.
 *
 * The audio is real speech (flite) with 300 ms pauses between sentences, cycled; each row is comparable to the
 * per-frame rows of the audio cases and its ratio is taken against the same μ-law decode baseline.
 */
import { ENGINE_FRAME_SAMPLES } from '@parley/engine/audio';
import { EnergyVad, GatedSileroVad, type SileroModel } from '@parley/engine';
import type { CaseTiming } from '../engine-audio/measure.ts';
import type { CallerAudio } from './caller-audio.ts';

/** Frames per timed batch: 1 s of audio; the CPU clock's microsecond resolution is far finer than that. */
const BATCH_FRAMES = 50;
/** Voiced frames per sentence, and pause frames after it. */
const SENTENCE_FRAMES = 150;
const PAUSE_FRAMES = 15;

interface VadVariant {
  name: string;
  work: string;
  classify(frame: Int16Array): Promise<boolean>;
}

export async function measureVadCosts(
  model: SileroModel,
  audio: CallerAudio,
  seconds: number,
  signal: AbortSignal,
): Promise<CaseTiming[]> {
  const gated = new GatedSileroVad(model);
  const everyWindow = model.stream();
  const window = new Float32Array(512);
  let filled = 0;
  const gate = new EnergyVad();
  const gateForModel = new EnergyVad();
  const variants: VadVariant[] = [
    {
      name: 'VAD: gate + Silero (as calls run it)',
      work: '320 samples → speech? (EnergyVad; Silero v5 until the stretch is confirmed, then 3 windows/s)',
      classify: async (frame) => {
        const speech = gated.classify(frame).speech;
        await gated.settled();
        return speech;
      },
    },
    {
      name: '  Silero on every gate-open window',
      work: '320 samples → speech? (EnergyVad; Silero v5 on each 512-sample window while the gate is open)',
      classify: async (frame) => {
        if (!gateForModel.classify(frame).speech) return false;
        let speech = false;
        for (let i = 0; i < frame.length; i += 1) {
          window[filled++] = frame[i]! / 32768;
          if (filled === window.length) {
            filled = 0;
            speech = (await everyWindow.probability(window)) >= 0.5;
          }
        }
        return speech;
      },
    },
    {
      name: '  the gate alone, same frames',
      work: '320 samples → speech? (EnergyVad)',
      classify: async (frame) => gate.classify(frame).speech,
    },
  ];
  const frames = conversation(audio);
  const timings: CaseTiming[] = [];
  for (const variant of variants) {
    const samples: number[] = [];
    let checksum = 0;
    let next = 0;
    const deadline = performance.now() + seconds * 1000;
    // One unmeasured pass first: the runtime allocates its buffers on the first inferences.
    for (let i = 0; i < BATCH_FRAMES; i += 1) await variant.classify(frames[i % frames.length]!);
    while (performance.now() < deadline && !signal.aborted) {
      const before = process.cpuUsage();
      for (let i = 0; i < BATCH_FRAMES; i += 1)
        if (await variant.classify(frames[next++ % frames.length]!)) checksum += 1;
      const spent = process.cpuUsage(before);
      samples.push((spent.user + spent.system) / BATCH_FRAMES);
    }
    const sorted = Float64Array.from(samples).sort();
    timings.push({
      name: variant.name,
      work: variant.work,
      baseline: false,
      batch: BATCH_FRAMES,
      frames: samples.length * BATCH_FRAMES,
      meanMicros: samples.reduce((a, b) => a + b, 0) / Math.max(1, samples.length),
      samples: sorted,
      checksum,
    });
  }
  gated.close();
  return timings;
}

/** Sentences of speech separated by pauses of line noise, as a talkative caller's audio. */
function conversation(audio: CallerAudio): Int16Array[] {
  const frames: Int16Array[] = [];
  for (let sentence = 0; sentence < 4; sentence += 1) {
    for (let f = 0; f < SENTENCE_FRAMES; f += 1) frames.push(audio.speech(sentence * SENTENCE_FRAMES + f));
    for (let f = 0; f < PAUSE_FRAMES; f += 1) frames.push(audio.noise(f));
  }
  return frames.map((frame) => (frame.length === ENGINE_FRAME_SAMPLES ? frame : frame.slice(0, ENGINE_FRAME_SAMPLES)));
}
