/**
 * The caller's side of `parley call`: the sentence it speaks, synthesised on this machine by Debian's flite (its
 * kal16 voice, the one pocketsphinx recognises best), else Debian's espeak-ng, else the WebAssembly espeak-ng that
 * `npm ci` installs (the engine's offline voice, `@parley/engine/offline-voice`), as 8 kHz PCM for a μ-law
 * telephone stream: a fresh machine with no Debian package still has a caller that speaks.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { decodeWav, resample } from '@parley/engine/audio';
import { createEspeakWasmTts } from '@parley/engine/offline-voice';
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
    return await speakWithWasmEspeak(text);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function speakWithWasmEspeak(text: string): Promise<Int16Array> {
  let voice: ReturnType<typeof createEspeakWasmTts>;
  try {
    voice = createEspeakWasmTts();
  } catch {
    throw new CliError('no voice to speak --speak with: run npm ci, or install flite (apt-get install flite)');
  }
  try {
    const parts: Int16Array[] = [];
    let sampleRate = 0;
    for await (const chunk of voice.synthesize({ text }, AbortSignal.timeout(60_000))) {
      parts.push(chunk.samples);
      sampleRate = chunk.sampleRate;
    }
    const samples = new Int16Array(parts.reduce((sum, part) => sum + part.length, 0));
    let offset = 0;
    for (const part of parts) {
      samples.set(part, offset);
      offset += part.length;
    }
    return sampleRate ? resample(samples, sampleRate, PHONE_SAMPLE_RATE) : samples;
  } finally {
    await voice.close();
  }
}
