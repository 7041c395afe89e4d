/**
 * Callers who speak real words: Silero behind the energy gate only hears speech as speech, so the synthetic voice of
 * caller-audio.ts (three sine partials) would never end a turn. flite (kal16, 16 kHz) says a few sentences once;
 * their voiced frames are cycled as the callers' speech, and the line noise stays the synthetic one.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ENGINE_FRAME_SAMPLES, ENGINE_SAMPLE_RATE, decodeWav, resample } from '@parley/engine/audio';
import type { CallerAudio } from './caller-audio.ts';

const SENTENCES =
  'I would like to move my appointment to Tuesday morning. Could you also tell me the address of the clinic? Thank you, that is all for now.';
/** A frame whose peak passes this is voiced; the fixed-latency STT counts frames above 1 000 as heard words. */
const VOICED_PEAK = 2_000;

/** Caller audio whose speech is flite's voice; rejects with flite's error when flite is not installed. */
export async function spokenCallerAudio(base: CallerAudio): Promise<CallerAudio> {
  const dir = await mkdtemp(join(tmpdir(), 'parley-bench-'));
  try {
    const file = join(dir, 'speech.wav');
    await promisify(execFile)('flite', ['-voice', 'kal16', '-t', SENTENCES, '-o', file]);
    const chunk = decodeWav(await readFile(file));
    const samples =
      chunk.sampleRate === ENGINE_SAMPLE_RATE
        ? chunk.samples
        : resample(chunk.samples, chunk.sampleRate, ENGINE_SAMPLE_RATE);
    const voiced: Int16Array[] = [];
    for (let offset = 0; offset + ENGINE_FRAME_SAMPLES <= samples.length; offset += ENGINE_FRAME_SAMPLES) {
      const frame = samples.slice(offset, offset + ENGINE_FRAME_SAMPLES);
      if (frame.some((s) => Math.abs(s) > VOICED_PEAK)) voiced.push(frame);
    }
    if (voiced.length === 0) throw new Error('flite produced no voiced audio');
    return { speech: (index) => voiced[index % voiced.length]!, noise: base.noise };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
