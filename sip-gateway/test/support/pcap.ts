/**
 * The caller's audio for SIPp: a flite sentence as G.711 μ-law RTP packets in a pcap file (Ethernet / IPv4 / UDP),
 * 20 ms apart, optionally followed by RFC 4733 telephone-events. SIPp's `play_pcap_audio` replays the RTP payloads
 * with the file's timing from its own media port.
 */
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { encodeMulaw, ULAW_SILENCE } from '@parley/engine/audio';

const run = promisify(execFile);
const PCMU = 0;
export const TELEPHONE_EVENT_PT = 101;
const FRAME = 160;

/** 8 kHz PCM16 of `text` spoken by flite (resampled by sox). */
export async function fliteSpeech8k(dir: string, text: string): Promise<Int16Array> {
  const wav = join(dir, 'speech.wav');
  const raw = join(dir, 'speech.raw');
  await run('flite', ['-t', text, '-o', wav]);
  await run('sox', [wav, '-r', '8000', '-c', '1', '-b', '16', '-e', 'signed-integer', '-t', 'raw', raw]);
  const bytes = await readFile(raw);
  return new Int16Array(bytes.buffer, bytes.byteOffset, bytes.length >> 1).slice();
}

interface Packet {
  atMs: number;
  rtp: Buffer;
}

function rtp(pt: number, marker: boolean, sequence: number, timestamp: number, payload: Buffer): Buffer {
  const out = Buffer.alloc(12 + payload.length);
  out[0] = 0x80;
  out[1] = (marker ? 0x80 : 0) | pt;
  out.writeUInt16BE(sequence & 0xffff, 2);
  out.writeUInt32BE(timestamp >>> 0, 4);
  out.writeUInt32BE(0x5eed1234, 8);
  payload.copy(out, 12);
  return out;
}

/**
 * RTP packets: `leadMs` of silence, the speech, `tailMs` of silence, then each of `digits` as a telephone-event
 * (100 ms tone, 3 end packets) with silence between.
 */
export function rtpPackets(
  speech: Int16Array,
  options: { leadMs?: number; tailMs?: number; digits?: string } = {},
): Packet[] {
  const packets: Packet[] = [];
  let sequence = 1000;
  let timestamp = 8000;
  let at = 0;
  const silence = Buffer.alloc(FRAME, ULAW_SILENCE);
  const audio = (payload: Buffer) => {
    packets.push({ atMs: at, rtp: rtp(PCMU, packets.length === 0, sequence++, timestamp, payload) });
    timestamp += FRAME;
    at += 20;
  };
  for (let i = 0; i < (options.leadMs ?? 0) / 20; i += 1) audio(silence);
  for (let i = 0; i + FRAME <= speech.length; i += FRAME)
    audio(Buffer.from(encodeMulaw(speech.subarray(i, i + FRAME))));
  for (let i = 0; i < (options.tailMs ?? 0) / 20; i += 1) audio(silence);
  for (const digit of options.digits ?? '') {
    const event = '0123456789*#ABCD'.indexOf(digit);
    const start = timestamp;
    for (let n = 1; n <= 8; n += 1) {
      const end = n > 5;
      const payload = Buffer.from([event, (end ? 0x80 : 0) | 10, 0, 0]);
      payload.writeUInt16BE(Math.min(n, 5) * FRAME, 2);
      packets.push({ atMs: at, rtp: rtp(TELEPHONE_EVENT_PT, n === 1, sequence++, start, payload) });
      at += 20;
    }
    timestamp = start + 8 * FRAME;
    for (let i = 0; i < 10; i += 1) audio(silence);
  }
  return packets;
}

/** Writes `packets` as a pcap (link type Ethernet) from 10.0.0.1:40000 to 10.0.0.2:40002. */
export async function writePcap(path: string, packets: Packet[]): Promise<void> {
  const parts: Buffer[] = [];
  const global = Buffer.alloc(24);
  global.writeUInt32LE(0xa1b2c3d4, 0);
  global.writeUInt16LE(2, 4);
  global.writeUInt16LE(4, 6);
  global.writeUInt32LE(65_535, 16);
  global.writeUInt32LE(1, 20);
  parts.push(global);
  for (const packet of packets) {
    const udpLength = 8 + packet.rtp.length;
    const ipLength = 20 + udpLength;
    const frame = Buffer.alloc(14 + ipLength);
    Buffer.from([0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 6]).copy(frame, 0);
    frame.writeUInt16BE(0x0800, 12);
    const ip = frame.subarray(14, 34);
    ip[0] = 0x45;
    ip.writeUInt16BE(ipLength, 2);
    ip[8] = 64;
    ip[9] = 17;
    Buffer.from([10, 0, 0, 1, 10, 0, 0, 2]).copy(ip, 12);
    let sum = 0;
    for (let i = 0; i < 20; i += 2) sum += ip.readUInt16BE(i);
    while (sum > 0xffff) sum = (sum & 0xffff) + (sum >>> 16);
    ip.writeUInt16BE(~sum & 0xffff, 10);
    const udp = frame.subarray(34, 42);
    udp.writeUInt16BE(40_000, 0);
    udp.writeUInt16BE(40_002, 2);
    udp.writeUInt16BE(udpLength, 4);
    packet.rtp.copy(frame, 42);
    const header = Buffer.alloc(16);
    header.writeUInt32LE(1_700_000_000 + Math.floor(packet.atMs / 1000), 0);
    header.writeUInt32LE((packet.atMs % 1000) * 1000, 4);
    header.writeUInt32LE(frame.length, 8);
    header.writeUInt32LE(frame.length, 12);
    parts.push(header, frame);
  }
  await writeFile(path, Buffer.concat(parts));
}
