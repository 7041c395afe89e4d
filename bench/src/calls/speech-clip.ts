/**
 * The callers' voice: one sentence said by flite (voice kal16), at the carrier's 8 kHz, cut from its first voiced
 * frame to its last, so the clip's end is the end of speech to the millisecond. Every simulated caller loops it.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { decodeWav, resample } from '@parley/engine/audio';

/**
 * No comma and no full stop inside: flite pauses at those. Its longest pause between words, as the fake STT hears it
 * (μ-law, back to 16 kHz), is 80 ms, the shortest of the sentences tried: the STT sends its final after 200 ms
 * without voiced audio, so a pause plus a stall of the engine's event loop longer than that margin would end the
 * caller's turn in mid-sentence.
 */
export const CALLER_SENTENCE = 'Hello I am calling about the delivery of my new washing machine';
/** The carriers' rate: the clip is resampled once here, not per call. */
export const CLIP_SAMPLE_RATE = 8_000;
/** 20 ms at 8 kHz. */
const FRAME_SAMPLES = 160;
/**
 * A frame whose peak passes this is voiced. It matches the fake STT's own threshold (1 000 at 16 kHz), so the
 * clip's last voiced frame is the one after which the STT's 200 ms start.
 */
export const VOICED_PEAK = 1_000;

export interface SpeechClip {
  /** PCM16 at CLIP_SAMPLE_RATE, from the first voiced frame to the end of the last one. */
  samples: Int16Array;
  sampleRate: number;
  /** Longest run of unvoiced frames inside the clip, ms: the longest pause between words. */
  longestPauseMs: number;
}

/** Says CALLER_SENTENCE with flite; rejects with flite's error when flite is not installed. */
export async function speechClip(sentence: string = CALLER_SENTENCE): Promise<SpeechClip> {
  const dir = await mkdtemp(join(tmpdir(), 'parley-bench-calls-'));
  try {
    const file = join(dir, 'caller.wav');
    await promisify(execFile)('flite', ['-voice', 'kal16', '-t', sentence, '-o', file]);
    const wav = decodeWav(await readFile(file));
    const samples =
      wav.sampleRate === CLIP_SAMPLE_RATE ? wav.samples : resample(wav.samples, wav.sampleRate, CLIP_SAMPLE_RATE);
    return trimToSpeech(samples);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** `samples` (8 kHz) cut to whole frames from the first voiced frame to the last; throws when none is voiced. */
export function trimToSpeech(samples: Int16Array): SpeechClip {
  const voiced: boolean[] = [];
  for (let at = 0; at + FRAME_SAMPLES <= samples.length; at += FRAME_SAMPLES) {
    let peak = 0;
    for (let i = at; i < at + FRAME_SAMPLES; i++) peak = Math.max(peak, Math.abs(samples[i]!));
    voiced.push(peak > VOICED_PEAK);
  }
  const first = voiced.indexOf(true);
  const last = voiced.lastIndexOf(true);
  if (first < 0) throw new Error('the recording has no voiced frame');
  let longest = 0;
  let run = 0;
  for (let f = first; f <= last; f++) {
    run = voiced[f] ? 0 : run + 1;
    longest = Math.max(longest, run);
  }
  return {
    samples: samples.slice(first * FRAME_SAMPLES, (last + 1) * FRAME_SAMPLES),
    sampleRate: CLIP_SAMPLE_RATE,
    longestPauseMs: longest * 20,
  };
}
