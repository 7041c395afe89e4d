/** Real speech for carrier tests: flite's kal16 voice at 16 kHz, synthesised once per text and kept. */
import { decodeMulaw, encodeMulaw } from '../../../src/audio/g711.ts';
import { TELEPHONE_BAND_HZ } from '../../../src/audio/polyphase-filter.ts';
import { resample } from '../../../src/audio/resampler.ts';
import { createFliteTts } from '../../../src/providers/flite/flite-tts.ts';
import { createPocketsphinxStt } from '../../../src/providers/pocketsphinx/pocketsphinx-stt.ts';
import type { SimFormat } from '../../fakes/carrier-sim/sim-format.ts';
import { collectAudio } from '../../offline-speech/support/offline-speech-kit.ts';

const cache = new Map<string, Promise<Int16Array>>();

/** `text` spoken by flite (kal16), 16 kHz PCM16. */
export function spoken(text: string): Promise<Int16Array> {
  let audio = cache.get(text);
  if (!audio) {
    audio = collectAudio(createFliteTts().synthesize({ text, voiceId: 'kal16' }, new AbortController().signal)).then(
      (clip) => {
        if (clip.sampleRate !== 16_000) throw new Error(`flite kal16 spoke at ${clip.sampleRate} Hz`);
        return clip.samples;
      },
    );
    cache.set(text, audio);
  }
  return audio;
}

/** Root-mean-square level of `samples`. */
export function level(samples: Int16Array): number {
  let sum = 0;
  for (const s of samples) sum += s * s;
  return Math.sqrt(sum / Math.max(1, samples.length));
}

/** Share of 20 ms frames of `samples` (at `rate`) louder than `threshold` RMS: how much of it is speech. */
export function voicedMs(samples: Int16Array, rate: number, threshold = 300): number {
  const frame = (rate * 20) / 1000;
  let voiced = 0;
  for (let at = 0; at + frame <= samples.length; at += frame)
    if (level(samples.subarray(at, at + frame)) > threshold) voiced += 20;
  return voiced;
}

/**
 * How closely `heard` contains `reference` (both 16 kHz): the normalised cross-correlation at the best alignment,
 * 1 for identical audio. The alignment is found on 10 ms energy envelopes, then refined sample by sample around it.
 */
export function similarity(reference: Int16Array, heard: Int16Array): number {
  const step = 160;
  const envelope = (s: Int16Array) =>
    Float64Array.from({ length: Math.floor(s.length / step) }, (_, i) => level(s.subarray(i * step, (i + 1) * step)));
  const ref = envelope(reference);
  const got = envelope(heard);
  let bestCoarse = 0;
  let bestScore = -Infinity;
  for (let lag = -ref.length + 1; lag < got.length; lag += 1) {
    let score = 0;
    for (let i = Math.max(0, -lag); i < ref.length && i + lag < got.length; i += 1) score += ref[i]! * got[i + lag]!;
    if (score > bestScore) {
      bestScore = score;
      bestCoarse = lag * step;
    }
  }
  let best = 0;
  for (let lag = bestCoarse - step; lag <= bestCoarse + step; lag += 1) {
    let dot = 0;
    let a = 0;
    let b = 0;
    for (let i = Math.max(0, -lag); i < reference.length && i + lag < heard.length; i += 1) {
      const x = reference[i]!;
      const y = heard[i + lag]!;
      dot += x * y;
      a += x * x;
      b += y * y;
    }
    if (a > 0 && b > 0) best = Math.max(best, dot / Math.sqrt(a * b));
  }
  return best;
}

/** What pocketsphinx makes of `audio` (16 kHz), as one utterance. */
export async function recognise(audio: Int16Array): Promise<string> {
  const abort = new AbortController();
  const stream = createPocketsphinxStt().open({ language: 'en-US' }, abort.signal);
  const silence = new Int16Array(4_800);
  for (const piece of [silence, audio, silence])
    for (let at = 0; at < piece.length; at += 320) stream.push(piece.subarray(at, at + 320));
  stream.endOfUtterance();
  try {
    for await (const event of stream) if (event.type === 'final') return event.text;
    return '';
  } finally {
    abort.abort();
  }
}

/**
 * `audio` (16 kHz) as the engine should hear it through a carrier stream of `format`: down to the stream's rate
 * as the carrier sends it, through its codec, and back up to 16 kHz as the engine's inbound path does.
 */
export function throughCarrier(audio: Int16Array, format: SimFormat): Int16Array {
  if (format.sampleRate === 16_000) return audio;
  let narrow = resample(audio, 16_000, format.sampleRate);
  if (format.encoding === 'mulaw') narrow = decodeMulaw(encodeMulaw(narrow));
  return resample(
    narrow,
    format.sampleRate,
    16_000,
    format.sampleRate === 8000 ? { sourceBandHz: TELEPHONE_BAND_HZ } : {},
  );
}
