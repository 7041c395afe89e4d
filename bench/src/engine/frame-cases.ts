/**
 * The per-frame audio work of a carrier call, composed from the public audio API as a carrier transport and the
 * session do it: inbound μ-law 8 kHz → decode → 8→16 kHz (telephone band) → energy VAD; outbound 16 kHz →
 * 16→8 kHz → μ-law encode → the call's PacedOutput (enqueue, and the clock's tick handing it to the transport).
 * Beside them, the bare μ-law decode loop every ratio is taken against, timed by the engine-audio suite's
 * interleaved measurer in the same run.
 */
import {
  ENGINE_FRAME_SAMPLES,
  PacedOutput,
  Resampler,
  TELEPHONE_BAND_HZ,
  decodeMulaw,
  encodeMulaw,
  resample,
} from '@parley/engine/audio';
import { cycle, ulawBaselineCase, type FrameCase } from '../engine-audio/cases.ts';
import type { CallerAudio } from './caller-audio.ts';
import { EnergyVad } from '@parley/engine';

/** Distinct frames of each kind cycled through: 1 s of signal, so each case walks a realistic working set. */
const SIGNAL_FRAMES = 50;

/** Speech and line noise alternating a second each, as a conversation gives the VAD both. */
function conversationFrames(audio: CallerAudio): Int16Array[] {
  return Array.from({ length: SIGNAL_FRAMES * 2 }, (_, f) => (f < SIGNAL_FRAMES ? audio.speech(f) : audio.noise(f)));
}

export function createFrameCases(audio: CallerAudio): FrameCase[] {
  const engineFrames = conversationFrames(audio);
  const whole = new Int16Array(engineFrames.length * ENGINE_FRAME_SAMPLES);
  engineFrames.forEach((frame, f) => whole.set(frame, f * ENGINE_FRAME_SAMPLES));
  const narrow = resample(whole, 16_000, 8000);
  const ulawFrames = Array.from({ length: engineFrames.length }, (_, f) =>
    encodeMulaw(narrow.subarray(f * 160, (f + 1) * 160)),
  );

  const upsampler = new Resampler(8000, 16_000, { sourceBandHz: TELEPHONE_BAND_HZ });
  const inboundGate = new EnergyVad();
  const nextInbound = cycle(ulawFrames);

  const gate = new EnergyVad();
  const nextEngineFrame = cycle(engineFrames);

  const downsampler = new Resampler(16_000, 8000);
  let sent = 0;
  const paced = new PacedOutput<Uint8Array>({
    send: (bytes) => {
      sent += bytes[0]!;
    },
  });
  const nextOutbound = cycle(engineFrames);

  return [
    ulawBaselineCase(ulawFrames),
    {
      name: 'inbound: decode + 8→16 kHz + VAD',
      work: '160 B → 320 samples → speech? (decodeMulaw, Resampler.push, EnergyVad)',
      step: () => {
        const samples = upsampler.push(decodeMulaw(nextInbound()));
        return inboundGate.classify(samples).speech ? samples.length : 0;
      },
      close: () => upsampler.reset(),
    },
    {
      name: '  of which the VAD',
      work: '320 samples → speech? (frame RMS in dBFS vs a 1.5 s noise floor)',
      step: () => (gate.classify(nextEngineFrame()).speech ? 1 : 0),
      close: () => {},
    },
    {
      name: 'outbound: 16→8 kHz + encode + pacing',
      work: '320 samples → 160 B → PacedOutput.enqueue, tick → send',
      step: () => {
        paced.enqueue(encodeMulaw(downsampler.push(nextOutbound())));
        paced.tick();
        return sent;
      },
      close: () => {
        downsampler.reset();
        paced.close();
      },
    },
  ];
}
