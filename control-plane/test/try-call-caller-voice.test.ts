/**
 * `parley call` on a machine without Debian's voices: the caller's sentence comes from the WebAssembly espeak-ng
 * that `npm ci` installs, so README's quick start works before any apt-get.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { PHONE_SAMPLE_RATE, speakAsCaller } from '../src/cli/try-call/caller-voice.ts';

const savedPath = process.env.PATH;

afterEach(() => {
  process.env.PATH = savedPath;
});

function rms(samples: Int16Array): number {
  let sum = 0;
  for (const sample of samples) sum += sample * sample;
  return Math.sqrt(sum / Math.max(1, samples.length));
}

describe("the try-call caller's voice", () => {
  it('speaks with the npm espeak-ng when neither flite nor espeak-ng is on PATH', async () => {
    process.env.PATH = '/nonexistent'; // no flite, no espeak-ng: only the WASM voice, started with this very node
    const samples = await speakAsCaller('Hello world');
    const seconds = samples.length / PHONE_SAMPLE_RATE;
    expect(seconds).toBeGreaterThan(0.5);
    expect(seconds).toBeLessThan(3);
    expect(rms(samples)).toBeGreaterThan(500);
  }, 60_000);
});
