import { describe, expect, it } from 'vitest';
import { WavFormatError } from '../../audio/wav.ts';
import { isProviderError } from '../provider-error.ts';
import { wavAudioChunks, WavStreamReader } from './wav-stream.ts';

/** A PCM16 mono WAV of `samples`; `dataSize` overrides the declared data length (piped WAV often lies). */
function wav(
  samples: number[],
  sampleRate: number,
  options: { dataSize?: number; extraChunk?: Buffer; channels?: number } = {},
): Buffer {
  const fmt = Buffer.alloc(24);
  fmt.write('fmt ', 0, 'latin1');
  fmt.writeUInt32LE(16, 4);
  fmt.writeUInt16LE(1, 8);
  fmt.writeUInt16LE(options.channels ?? 1, 10);
  fmt.writeUInt32LE(sampleRate, 12);
  fmt.writeUInt32LE(sampleRate * 2, 16);
  fmt.writeUInt16LE(2, 20);
  fmt.writeUInt16LE(16, 22);
  const data = Buffer.alloc(8 + samples.length * 2);
  data.write('data', 0, 'latin1');
  data.writeUInt32LE(options.dataSize ?? samples.length * 2, 4);
  samples.forEach((s, i) => data.writeInt16LE(s, 8 + i * 2));
  const body = Buffer.concat([Buffer.from('WAVE', 'latin1'), fmt, options.extraChunk ?? Buffer.alloc(0), data]);
  const riff = Buffer.alloc(8);
  riff.write('RIFF', 0, 'latin1');
  riff.writeUInt32LE(body.length, 4);
  return Buffer.concat([riff, body]);
}

describe('WavStreamReader', () => {
  it('reads the rate from the header and returns the samples', () => {
    const reader = new WavStreamReader();
    expect(Array.from(reader.push(wav([1, -2, 32767, -32768], 22_050)))).toEqual([1, -2, 32767, -32768]);
    expect(reader.sampleRate).toBe(22_050);
    reader.end();
  });

  it('gives the same samples when the bytes arrive one at a time (header and samples split anywhere)', () => {
    const bytes = wav([100, -200, 300, -400, 500], 16_000);
    const reader = new WavStreamReader();
    const got: number[] = [];
    for (const byte of bytes) got.push(...reader.push(Uint8Array.of(byte)));
    expect(got).toEqual([100, -200, 300, -400, 500]);
  });

  it('reads to the end of input when the declared data size is larger (espeak-ng writes 0x7ffff000)', () => {
    const reader = new WavStreamReader();
    expect(Array.from(reader.push(wav([7, 8, 9], 22_050, { dataSize: 0x7ffff000 })))).toEqual([7, 8, 9]);
  });

  it('stops at the declared data size when more bytes follow (a trailing chunk)', () => {
    const bytes = Buffer.concat([wav([1, 2, 3], 16_000), Buffer.from('LIST\x04\x00\x00\x00abcd', 'latin1')]);
    expect(Array.from(new WavStreamReader().push(bytes))).toEqual([1, 2, 3]);
  });

  it('skips chunks between fmt and data', () => {
    const extra = Buffer.concat([
      Buffer.from('LIST', 'latin1'),
      Buffer.from([3, 0, 0, 0]),
      Buffer.from('abc\0', 'latin1'),
    ]);
    expect(Array.from(new WavStreamReader().push(wav([5, 6], 8_000, { extraChunk: extra })))).toEqual([5, 6]);
  });

  it('refuses what it cannot read: not WAV, stereo, input ending inside the header', () => {
    expect(() => new WavStreamReader().push(Buffer.from('ID3 and some mp3 bytes'))).toThrow(WavFormatError);
    expect(() => new WavStreamReader().push(wav([1, 2], 16_000, { channels: 2 }))).toThrow(WavFormatError);
    const reader = new WavStreamReader();
    reader.push(wav([1], 16_000).subarray(0, 20));
    expect(() => reader.end()).toThrow(WavFormatError);
  });
});

describe('wavAudioChunks', () => {
  it('cuts the audio into chunks of at most maxChunkMs at the stream rate', async () => {
    const samples = Array.from({ length: 3500 }, (_, i) => i % 1000);
    const chunks = [];
    for await (const chunk of wavAudioChunks('flite', [wav(samples, 16_000)], 100)) chunks.push(chunk);
    expect(chunks.map((c) => c.samples.length)).toEqual([1600, 1600, 300]);
    expect(chunks.every((c) => c.sampleRate === 16_000)).toBe(true);
    expect(chunks.flatMap((c) => Array.from(c.samples))).toEqual(samples);
  });

  it('yields nothing for a WAV without samples', async () => {
    const none = [];
    for await (const chunk of wavAudioChunks('flite', [wav([], 16_000)], 100)) none.push(chunk);
    expect(none).toEqual([]);
  });

  it("fails with the provider's provider_failed for empty input or output that is not PCM16 mono WAV", async () => {
    const failure = async (input: Uint8Array[]) => {
      try {
        for await (const _ of wavAudioChunks('espeak', input, 100)) void _;
      } catch (error) {
        return error;
      }
      return undefined;
    };
    for (const input of [[], [Buffer.from('ID3 and some mp3 bytes')], [wav([1, 2], 16_000, { channels: 2 })]]) {
      const error = await failure(input);
      expect(isProviderError(error, 'provider_failed'), String(error)).toBe(true);
      expect(error).toMatchObject({ provider: 'espeak', cause: expect.any(WavFormatError) });
    }
  });
});
