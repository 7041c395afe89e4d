import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import {
  ALAW_SILENCE,
  ULAW_SILENCE,
  alawToLinear,
  decodeAlaw,
  decodeMulaw,
  encodeAlaw,
  encodeMulaw,
  linearToAlaw,
  linearToMulaw,
  mulawToLinear,
} from './g711.ts';
import { pcm16FromBytesLE, pcm16ToBytesLE } from './pcm16.ts';
import { decibels, sineWave, toneAmplitude } from './tone.ts';

/** Every 16-bit sample value, lowest first. */
const EVERY_SAMPLE = Int16Array.from({ length: 65536 }, (_, i) => i - 32768);
const EVERY_CODE = Uint8Array.from({ length: 256 }, (_, i) => i);

function hasSox(): boolean {
  try {
    execFileSync('sox', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Runs sox on raw audio from stdin to raw audio on stdout, without dither (which would add noise on purpose). */
function sox(input: Uint8Array, from: string[], to: string[]): Buffer {
  return execFileSync('sox', ['-D', '-t', 'raw', '-r', '8000', '-c', '1', ...from, '-', '-t', 'raw', ...to, '-'], {
    input,
  });
}

const PCM = ['-e', 'signed-integer', '-b', '16', '-L'];

describe('G.711', () => {
  it('decodes the reference values of both laws', () => {
    expect([0xff, 0x7f, 0x00, 0x80, 0xfe].map(mulawToLinear)).toEqual([0, 0, -32124, 32124, 8]);
    expect([0xd5, 0x55, 0xaa, 0x2a].map(alawToLinear)).toEqual([8, -8, 32256, -32256]);
    expect(mulawToLinear(ULAW_SILENCE)).toBe(0);
    expect(alawToLinear(ALAW_SILENCE)).toBe(8);
  });

  it('encodes silence, full scale and beyond to the right codes', () => {
    expect([0, 32767, -32768, 40000, -40000].map(linearToMulaw)).toEqual([0xff, 0x80, 0x00, 0x80, 0x00]);
    expect([0, 32767, -32768].map(linearToAlaw)).toEqual([0xd5, 0xaa, 0x2a]);
  });

  it('round-trips every code byte through decode and encode (bar μ-law’s negative zero)', () => {
    const ulaw = encodeMulaw(decodeMulaw(EVERY_CODE));
    const alaw = encodeAlaw(decodeAlaw(EVERY_CODE));
    for (let code = 0; code < 256; code++) {
      expect(ulaw[code], `μ-law ${code}`).toBe(code === 0x7f ? 0xff : code);
      expect(alaw[code], `A-law ${code}`).toBe(code);
    }
  });

  it('quantises monotonically: a louder sample never gets a quieter code', () => {
    const decodedUlaw = decodeMulaw(encodeMulaw(EVERY_SAMPLE));
    const decodedAlaw = decodeAlaw(encodeAlaw(EVERY_SAMPLE));
    let reversals = 0;
    for (let i = 1; i < EVERY_SAMPLE.length; i++) {
      if (decodedUlaw[i]! < decodedUlaw[i - 1]!) reversals++;
      if (decodedAlaw[i]! < decodedAlaw[i - 1]!) reversals++;
    }
    expect(reversals).toBe(0);
  });

  it.runIf(hasSox())('decodes every code byte exactly as sox does, both laws', () => {
    for (const [encoding, decode] of [
      ['mu-law', decodeMulaw],
      ['a-law', decodeAlaw],
    ] as const) {
      const theirs = pcm16FromBytesLE(sox(EVERY_CODE, ['-e', encoding, '-b', '8'], PCM));
      expect([...decode(EVERY_CODE)], encoding).toEqual([...theirs]);
    }
  });

  it.runIf(hasSox())('encodes like sox except within one truncation step of a decision level', () => {
    // G.711 quantises 14-bit (μ-law) or 13-bit (A-law) samples; how 16-bit samples are cut down to that is left to
    // the implementation. We truncate magnitudes as ITU-T G.191's reference code does; sox rounds differently, so
    // the two may pick neighbouring codes for samples within one step of a threshold, and nowhere else.
    const pcm = pcm16ToBytesLE(EVERY_SAMPLE);
    for (const [encoding, encode, step] of [
      ['mu-law', encodeMulaw, 4],
      ['a-law', encodeAlaw, 8],
    ] as const) {
      const theirs = sox(pcm, PCM, ['-e', encoding, '-b', '8']);
      const ours = encode(EVERY_SAMPLE);
      let mismatches = 0;
      for (let i = 0; i < ours.length; i++) {
        if (ours[i] === theirs[i]) continue;
        mismatches++;
        const nearby = [];
        for (let k = Math.max(0, i - step); k <= Math.min(ours.length - 1, i + step); k++) nearby.push(ours[k]);
        expect(nearby, `${encoding} at ${EVERY_SAMPLE[i]}`).toContain(theirs[i]);
      }
      expect(mismatches / ours.length, encoding).toBeLessThan(0.02);
    }
  });

  it('carries a 1 kHz tone at telephone level with the SNR G.711 promises (~38 dB)', () => {
    const tone = sineWave(1000, 8000, 8000, 10_000);
    for (const [law, decoded] of [
      ['μ-law', decodeMulaw(encodeMulaw(tone))],
      ['A-law', decodeAlaw(encodeAlaw(tone))],
    ] as const) {
      let noise = 0;
      let signal = 0;
      for (let i = 0; i < tone.length; i++) {
        noise += (decoded[i]! - tone[i]!) ** 2;
        signal += tone[i]! ** 2;
      }
      expect(decibels(Math.sqrt(signal), Math.sqrt(noise)), law).toBeGreaterThan(33);
      expect(Math.abs(decibels(toneAmplitude(decoded, 1000, 8000), 10_000)), law).toBeLessThan(0.2);
    }
  });

  it('writes into a caller’s buffer and refuses one that is too small', () => {
    const out = new Uint8Array(4);
    expect(encodeMulaw(Int16Array.of(0, 0, 0, 0), out)).toBe(out);
    expect([...out]).toEqual([0xff, 0xff, 0xff, 0xff]);
    expect(() => decodeMulaw(new Uint8Array(4), new Int16Array(3))).toThrow(RangeError);
    expect(() => encodeAlaw(new Int16Array(4), new Uint8Array(2))).toThrow(RangeError);
  });
});
