import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FILE_SINK_MAX_PENDING_BYTES, FileSink, MemorySink } from './byte-sink.ts';
import { WAV_HEADER_BYTES, WavFormatError, WavWriter, decodeWav, encodeWav, wavHeader } from './wav.ts';
import { sineWave } from './tone.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'parley-wav-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function soxInfo(file: string): string | undefined {
  try {
    return execFileSync('soxi', [file], { encoding: 'utf8' });
  } catch {
    return undefined;
  }
}

describe('WAV', () => {
  it('encodes a clip with a canonical 44-byte header and decodes it back', () => {
    const samples = sineWave(440, 16_000, 1600);
    const bytes = encodeWav({ samples, sampleRate: 16_000 });
    expect(bytes.length).toBe(WAV_HEADER_BYTES + 3200);
    expect(bytes.toString('latin1', 0, 4)).toBe('RIFF');
    expect(bytes.readUInt32LE(4)).toBe(36 + 3200);
    expect(bytes.readUInt32LE(24)).toBe(16_000);
    expect(bytes.readUInt32LE(28)).toBe(32_000);
    expect(bytes.readUInt32LE(40)).toBe(3200);
    expect(decodeWav(bytes)).toEqual({ samples, sampleRate: 16_000 });
  });

  it('streams into a file and patches the sizes on close, so sox reads the right duration', async () => {
    const file = path.join(dir, 'stream.wav');
    const writer = new WavWriter(await FileSink.open(file), 8000);
    // 5 s in 20 ms frames: more than one 64 KiB batch of the file sink.
    for (let f = 0; f < 250; f++) writer.write(sineWave(1000, 8000, 160, 8000, f * 160));
    expect(writer.durationMs).toBe(5000);
    await writer.close();
    const bytes = await readFile(file);
    expect(bytes.length).toBe(WAV_HEADER_BYTES + 80_000);
    const decoded = decodeWav(bytes);
    expect(decoded.sampleRate).toBe(8000);
    expect(decoded.samples).toEqual(sineWave(1000, 8000, 40_000, 8000));
    const info = soxInfo(file);
    if (info !== undefined) {
      expect(info).toMatch(/Sample Rate\s*:\s*8000/);
      expect(info).toMatch(/Duration\s*:\s*00:00:05\.00 = 40000 samples/);
    }
  });

  it('reads files whose header was never patched (TTS engines writing to a pipe) and skips unknown chunks', () => {
    const samples = Int16Array.of(1, -2, 3);
    const header = wavHeader(22_050, 0);
    header.writeUInt32LE(0xffff_ffff, 40);
    expect(decodeWav(Buffer.concat([header, Buffer.from(samples.buffer)])).samples).toEqual(samples);
    // A LIST chunk of odd length (padded) between fmt and data.
    const canonical = encodeWav({ samples, sampleRate: 22_050 });
    const list = Buffer.concat([
      Buffer.from('LIST', 'latin1'),
      Buffer.from([3, 0, 0, 0]),
      Buffer.from('abc'),
      Buffer.from([0]),
    ]);
    const withList = Buffer.concat([canonical.subarray(0, 36), list, canonical.subarray(36)]);
    expect(decodeWav(withList)).toEqual({ samples, sampleRate: 22_050 });
  });

  it('refuses what is not 16-bit PCM mono', () => {
    const stereo = encodeWav({ samples: new Int16Array(4), sampleRate: 8000 });
    stereo.writeUInt16LE(2, 22);
    expect(() => decodeWav(stereo)).toThrow(WavFormatError);
    expect(() => decodeWav(Buffer.from('not a wav file at all'))).toThrow(WavFormatError);
  });

  it('writes to memory too, and rejects a patch beyond what was written', async () => {
    const sink = new MemorySink();
    const writer = new WavWriter(sink, 16_000);
    writer.write(Int16Array.of(7, 8));
    await writer.close();
    expect(decodeWav(sink.bytes()).samples).toEqual(Int16Array.of(7, 8));
    expect(() => sink.patch(sink.length - 1, Buffer.alloc(2))).toThrow(RangeError);
  });

  it.runIf(existsSync('/dev/full'))(
    'surfaces a write error on close instead of throwing at the caller mid-call',
    async () => {
      const writer = new WavWriter(await FileSink.open('/dev/full'), 16_000);
      for (let f = 0; f < 200; f++) writer.write(new Int16Array(320));
      await expect(writer.close()).rejects.toMatchObject({ code: 'ENOSPC' });
    },
  );

  it('fails the sink, not the process, when the disk falls too far behind', async () => {
    const sink = await FileSink.open(path.join(dir, 'behind.raw'));
    const second = Buffer.alloc(32_000);
    // All appended in one go, before any write can finish: more than the sink may hold.
    for (let s = 0; s <= FILE_SINK_MAX_PENDING_BYTES / second.length; s++) sink.append(second);
    await expect(sink.close()).rejects.toMatchObject({ code: 'sink_overflow' });
  });
});
