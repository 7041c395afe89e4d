/**
 * The caller's side of `parley call`: the sentence it speaks, synthesised on this machine by Debian's flite (its
 * kal16 voice, the one pocketsphinx recognises best) or else espeak-ng, as 8 kHz PCM for a μ-law telephone stream.
 * A subprocess rather than the engine's providers: the engine's root export keeps its providers to itself, and the
 * script only needs one WAV.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { decodeWav, resample } from '@parley/engine/audio';
import { CliError } from '../command.ts';

const run = promisify(execFile);

/** The telephone rate of the Media Streams dialect. */
export const PHONE_SAMPLE_RATE = 8_000;

/** How each synthesiser writes `text` to `file`, best for recognition first. */
const SYNTHESISERS: { program: string; args(text: string, file: string): string[] }[] = [
  { program: 'flite', args: (text, file) => ['-voice', 'kal16', '-t', text, '-o', file] },
  { program: 'espeak-ng', args: (text, file) => ['-w', file, text] },
];

/** `text` spoken, at PHONE_SAMPLE_RATE. */
export async function speakAsCaller(text: string): Promise<Int16Array> {
  const dir = await mkdtemp(path.join(tmpdir(), 'parley-call-'));
  try {
    const file = path.join(dir, 'caller.wav');
    for (const synthesiser of SYNTHESISERS) {
      try {
        await run(synthesiser.program, synthesiser.args(text, file), { timeout: 30_000 });
      } catch {
        continue; // not installed here (or failed): try the next one
      }
      const wav = decodeWav(await readFile(file));
      return resample(wav.samples, wav.sampleRate, PHONE_SAMPLE_RATE);
    }
    throw new CliError('no voice to speak --speak with: install flite or espeak-ng (apt-get install flite espeak-ng)');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
