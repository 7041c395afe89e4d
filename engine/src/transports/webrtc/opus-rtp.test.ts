import { describe, expect, it } from 'vitest';
import { rms, sineWave } from '../../audio/tone.ts';
import { OPUS_RTP_TICKS_PER_FRAME, OpusDepacketiser, OpusRtpPacketiser } from './opus-rtp.ts';
import { parseSignal } from './webrtc-signalling.ts';

const frame = () => sineWave(440, 16_000, 320, 8000);

describe('Opus over RTP', () => {
  it('steps the timestamp 960 per frame, and jumps it over a pause with the marker set', () => {
    let now = 0;
    const packetiser = new OpusRtpPacketiser(() => now);
    const first = packetiser.packet(frame());
    now += 20;
    const second = packetiser.packet(frame());
    now += 20 + 1_000;
    const afterPause = packetiser.packet(frame());
    expect(first.marker).toBe(true);
    expect(second.marker).toBe(false);
    expect((second.timestamp - first.timestamp) >>> 0).toBe(OPUS_RTP_TICKS_PER_FRAME);
    expect((second.sequenceNumber - first.sequenceNumber) & 0xffff).toBe(1);
    expect(afterPause.marker).toBe(true);
    expect((afterPause.timestamp - second.timestamp) >>> 0).toBe(51 * OPUS_RTP_TICKS_PER_FRAME);
    packetiser.interrupt();
    now += 20;
    expect(packetiser.packet(frame()).marker).toBe(true);
    packetiser.close();
  });

  it('decodes in sequence order across the 16-bit wrap: reordered packets put back, duplicates and late ones dropped, a lost one concealed', () => {
    let now = 0;
    const packetiser = new OpusRtpPacketiser(() => (now += 20));
    // Frame k is a tone of its own loudness, so the order frames come out in can be read off their level.
    const payloads = Array.from(
      { length: 12 },
      (_, k) => packetiser.packet(sineWave(440, 16_000, 320, 1_500 * (k + 1))).payload,
    );
    const frames: Int16Array[] = [];
    const depacketiser = new OpusDepacketiser((samples) => frames.push(samples));
    const sequence = (k: number) => (65_533 + k) & 0xffff;
    // 3 and 2 swapped, 4 twice, 5 lost (and arriving after it was given up), 6… in order.
    for (const k of [0, 1, 3, 2, 4, 4, 6, 7, 8, 5, 9, 10, 11]) depacketiser.push(sequence(k), payloads[k]!);
    depacketiser.push(sequence(12), Buffer.from([0xff, 0xff, 0xff]));
    expect(depacketiser.stats).toMatchObject({ packets: 14, duplicates: 1, late: 1, corrupt: 1, concealedFrames: 1 });
    expect(frames.every((f) => f.length === 320)).toBe(true);
    expect(frames.length).toBeGreaterThanOrEqual(10);
    const levels = frames.map((f) => rms(f));
    // In order: each frame louder than the one before, but for the concealed 5 (a repeat of 4).
    for (const k of [2, 3, 4, 7, 8, 9]) expect(levels[k]!, `frame ${k}`).toBeGreaterThan(levels[k - 1]!);
    packetiser.close();
    depacketiser.close();
  });
});

describe('WebRTC signalling', () => {
  it('reads offers, candidates and hang-ups, and names what is malformed', () => {
    expect(parseSignal('{"type":"offer","sdp":"v=0"}')).toEqual({ type: 'offer', sdp: 'v=0' });
    expect(parseSignal('{"type":"candidate","candidate":{"candidate":"","sdpMid":"0","sdpMLineIndex":0}}')).toEqual({
      type: 'candidate',
      candidate: { candidate: '', sdpMid: '0', sdpMLineIndex: 0 },
    });
    expect(parseSignal('{"type":"hangup"}')).toEqual({ type: 'hangup' });
    expect(parseSignal('nope')).toEqual({ type: 'malformed', why: 'not JSON' });
    expect(parseSignal('{"type":"offer"}')).toMatchObject({ type: 'malformed' });
    expect(parseSignal(`{"type":"offer","sdp":"${'a'.repeat(70_000)}"}`)).toMatchObject({ type: 'malformed' });
    expect(parseSignal('{"type":"dance"}')).toEqual({ type: 'malformed', why: 'unknown type "dance"' });
  });
});
