import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileSink, MemorySink } from './byte-sink.ts';
import { OGG_BEGINNING_OF_STREAM, OGG_END_OF_STREAM, encodeOggPage, oggCrc32 } from './ogg-page.ts';
import { OPUS_PRE_SKIP, OggOpusWriter } from './ogg-opus-writer.ts';
import { OpusDecoder, type OpusSampleRate } from './opus-codec.ts';
import { decodeWav } from './wav.ts';
import { decibels, rms, sineWave, toneAmplitude } from './tone.ts';

interface ParsedPage {
  flags: number;
  granule: bigint;
  serial: number;
  sequence: number;
  packets: Buffer[];
}

/** A strict reader of our own pages: checks capture pattern, CRC and lacing as it goes. */
function parsePages(file: Buffer): ParsedPage[] {
  const pages: ParsedPage[] = [];
  for (let at = 0; at < file.length; ) {
    expect(file.toString('latin1', at, at + 4)).toBe('OggS');
    const segments = file[at + 26]!;
    const lacing = [...file.subarray(at + 27, at + 27 + segments)];
    const length = 27 + segments + lacing.reduce((a, b) => a + b, 0);
    const page = Buffer.from(file.subarray(at, at + length));
    const crc = page.readUInt32LE(22);
    page.writeUInt32LE(0, 22);
    expect(oggCrc32(page)).toBe(crc);
    const packets: Buffer[] = [];
    let body = at + 27 + segments;
    let size = 0;
    for (const value of lacing) {
      size += value;
      if (value < 255) {
        packets.push(file.subarray(body, body + size));
        body += size;
        size = 0;
      }
    }
    expect(size, 'no packet continues onto the next page').toBe(0);
    pages.push({
      flags: file[at + 5]!,
      granule: file.readBigInt64LE(at + 6),
      serial: file.readUInt32LE(at + 14),
      sequence: file.readUInt32LE(at + 18),
      packets,
    });
    at += length;
  }
  return pages;
}

/** Writes `seconds` of a tone in awkward chunk sizes, as TTS and resamplers deliver them. */
async function writeTone(
  sink: FileSink | MemorySink,
  rate: OpusSampleRate,
  frequency: number,
  samples: number,
): Promise<void> {
  const writer = new OggOpusWriter(sink, { sampleRate: rate, tags: { CALL_ID: 'call-1' } });
  for (let at = 0; at < samples; at += 777)
    writer.write(sineWave(frequency, rate, Math.min(777, samples - at), 10_000, at));
  expect(writer.durationMs).toBeCloseTo((samples / rate) * 1000, 6);
  await writer.close();
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'parley-ogg-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('OGG pages', () => {
  it('computes the OGG CRC-32 (poly 0x04C11DB7, init 0, not reflected, no final xor)', () => {
    // The CRC-32/POSIX check value 0x765E7680 is the same CRC with a final xor of 0xFFFFFFFF.
    expect(oggCrc32(Buffer.from('123456789', 'latin1'))).toBe((0x765e7680 ^ 0xffffffff) >>> 0);
    expect(oggCrc32(new Uint8Array(0))).toBe(0);
  });

  it('laces packets into 255-byte segments, ending each with a value below 255', () => {
    const page = encodeOggPage({
      flags: 0,
      granulePosition: 960n,
      serial: 7,
      sequence: 3,
      packets: [Buffer.alloc(600, 1), Buffer.alloc(510, 2), Buffer.alloc(0)],
    });
    expect(page[26]).toBe(7);
    expect([...page.subarray(27, 34)]).toEqual([255, 255, 90, 255, 255, 0, 0]);
    expect(page.length).toBe(27 + 7 + 1110);
    expect(() =>
      encodeOggPage({ flags: 0, granulePosition: 0n, serial: 1, sequence: 0, packets: [Buffer.alloc(255 * 255)] }),
    ).toThrow(RangeError);
  });
});

describe('OggOpusWriter', () => {
  it('writes a file that opusinfo accepts without a warning, with the exact duration', async () => {
    const file = path.join(dir, 'tone.opus');
    await writeTone(await FileSink.open(file), 16_000, 1000, 32_000);
    const info = execFileSync('opusinfo', [file], { encoding: 'utf8' });
    expect(info).not.toMatch(/warning|error/i);
    expect(info).toMatch(/Pre-skip: 312/);
    expect(info).toMatch(/Original sample rate: 16000 Hz/);
    expect(info).toMatch(/Packet duration:\s+20\.0ms \(max\)/);
    expect(info).toMatch(/Playback length: 0m:02\.000s/);
    expect(info).toMatch(/CALL_ID=call-1/);
  });

  it('decodes with opusdec to the same number of samples and the same tone', async () => {
    const file = path.join(dir, 'opusdec.opus');
    const wav = path.join(dir, 'opusdec.wav');
    await writeTone(await FileSink.open(file), 16_000, 1000, 24_321);
    execFileSync('opusdec', ['--quiet', '--rate', '16000', file, wav]);
    const decoded = decodeWav(await readFile(wav));
    expect(decoded.sampleRate).toBe(16_000);
    expect(decoded.samples.length).toBe(24_321);
    const steady = decoded.samples.subarray(1600, 22_000);
    expect(Math.abs(decibels(toneAmplitude(steady, 1000, 16_000), 10_000))).toBeLessThan(1);
    // The tone is all there is: no noise, no pitch error.
    expect(Math.abs(decibels(rms(steady) * Math.SQRT2, toneAmplitude(steady, 1000, 16_000)))).toBeLessThan(0.5);
  });

  it('writes stereo that opusdec decodes with each channel where it was put (a recording: caller left, agent right)', async () => {
    const file = path.join(dir, 'stereo.opus');
    const wav = path.join(dir, 'stereo.wav');
    const writer = new OggOpusWriter(await FileSink.open(file), { sampleRate: 16_000, channels: 2 });
    const left = sineWave(440, 16_000, 16_000, 8_000);
    const right = sineWave(1_000, 16_000, 16_000, 8_000);
    const interleaved = new Int16Array(32_000);
    for (let i = 0; i < 16_000; i += 1) {
      interleaved[2 * i] = left[i]!;
      interleaved[2 * i + 1] = right[i]!;
    }
    for (let at = 0; at < interleaved.length; at += 640) writer.write(interleaved.subarray(at, at + 640));
    expect(writer.durationMs).toBeCloseTo(1000, 6);
    await writer.close();
    expect(execFileSync('opusinfo', [file], { encoding: 'utf8' })).toMatch(/Channels: 2/);
    execFileSync('opusdec', ['--quiet', '--rate', '16000', file, wav]);
    const bytes = await readFile(wav);
    const data = bytes.indexOf('data', 12, 'latin1');
    const pcm = new Int16Array(bytes.buffer.slice(bytes.byteOffset + data + 8, bytes.byteOffset + bytes.length));
    expect(pcm.length).toBe(32_000);
    const channel = (c: number) => Int16Array.from({ length: 12_000 }, (_, i) => pcm[2 * (i + 2_000) + c]!);
    expect(Math.abs(decibels(toneAmplitude(channel(0), 440, 16_000), 8_000))).toBeLessThan(1);
    expect(Math.abs(decibels(toneAmplitude(channel(1), 1_000, 16_000), 8_000))).toBeLessThan(1);
    expect(decibels(toneAmplitude(channel(0), 1_000, 16_000), 8_000)).toBeLessThan(-30);
    expect(decibels(toneAmplitude(channel(1), 440, 16_000), 8_000)).toBeLessThan(-30);
  });

  for (const rate of [16_000, 48_000] as const) {
    it(`${rate / 1000} kHz: pages, granule positions and flags follow RFC 7845, and our decoder gets the tone back`, async () => {
      const sink = new MemorySink();
      const samples = rate * 3 + 123;
      await writeTone(sink, rate, 440, samples);
      const pages = parsePages(sink.bytes());
      expect(pages.map((p) => p.sequence)).toEqual(pages.map((_, i) => i));
      expect(new Set(pages.map((p) => p.serial)).size).toBe(1);
      expect(pages.map((p) => p.flags)).toEqual([
        OGG_BEGINNING_OF_STREAM,
        ...pages.slice(1, -1).map(() => 0),
        OGG_END_OF_STREAM,
      ]);
      // OpusHead alone on the first page, OpusTags alone on the second, both at granule 0.
      expect(pages[0]!.packets.map((p) => p.toString('latin1', 0, 8))).toEqual(['OpusHead']);
      expect(pages[1]!.packets.map((p) => p.toString('latin1', 0, 8))).toEqual(['OpusTags']);
      expect([pages[0]!.granule, pages[1]!.granule]).toEqual([0n, 0n]);
      const head = pages[0]!.packets[0]!;
      expect([head[8], head[9], head.readUInt16LE(10), head.readUInt32LE(12), head[18]]).toEqual([
        1,
        1,
        OPUS_PRE_SKIP,
        rate,
        0,
      ]);
      // Each audio page's granule counts 960 per 20 ms packet so far (pre-skip included); the last one trims.
      let packets = 0;
      const audio = pages.slice(2);
      for (const page of audio.slice(0, -1)) {
        packets += page.packets.length;
        expect(page.granule).toBe(BigInt(packets * 960));
      }
      const end = BigInt(OPUS_PRE_SKIP + Math.round((samples * 48_000) / rate));
      expect(audio.at(-1)!.granule).toBe(end);
      packets += audio.at(-1)!.packets.length;
      expect(BigInt(packets * 960) - end).toBeGreaterThanOrEqual(0n);
      expect(BigInt(packets * 960) - end).toBeLessThan(960n);

      const decoder = new OpusDecoder(rate);
      const pcm = audio.flatMap((page) => page.packets.flatMap((packet) => [...decoder.decode(packet)]));
      decoder.close();
      const preSkip = (OPUS_PRE_SKIP * rate) / 48_000;
      const played = Int16Array.from(pcm.slice(preSkip, preSkip + samples));
      expect(played.length).toBe(samples);
      const steady = played.subarray(rate / 10, samples - rate / 10);
      expect(Math.abs(decibels(toneAmplitude(steady, 440, rate), 10_000))).toBeLessThan(1);
      // Aligned after the pre-skip: the decoded tone lines up with the original within a few samples' phase.
      const original = sineWave(440, rate, samples, 10_000);
      let error = 0;
      for (let i = rate / 10; i < samples - rate / 10; i++) error += (played[i]! - original[i]!) ** 2;
      expect(decibels(rms(steady), Math.sqrt(error / steady.length))).toBeGreaterThan(20);
    });
  }

  it('writes a valid, empty stream when closed before any audio', async () => {
    const file = path.join(dir, 'empty.opus');
    const writer = new OggOpusWriter(await FileSink.open(file), { sampleRate: 16_000 });
    await writer.close();
    await writer.close();
    const info = execFileSync('opusinfo', [file], { encoding: 'utf8' });
    expect(info).not.toMatch(/warning|error/i);
    expect(info).toMatch(/Playback length: 0m:00\.000s/);
  });
});
