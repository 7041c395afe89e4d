import { describe, expect, it } from 'vitest';
import { sineWave } from '../../audio/tone.ts';
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

  it('decodes packets across the 16-bit sequence wrap, drops duplicates and corrupt packets, conceals a gap', () => {
    let now = 0;
    const packetiser = new OpusRtpPacketiser(() => (now += 20));
    const frames: Int16Array[] = [];
    const depacketiser = new OpusDepacketiser((samples) => frames.push(samples));
    const sequences = [65533, 65534, 65535, 0, 0, 2, 3, 4, 5, 6, 7];
    for (const sequence of sequences) depacketiser.push(sequence, packetiser.packet(frame()).payload);
    depacketiser.push(8, Buffer.from([0xff, 0xff, 0xff]));
    const stats = depacketiser.stats;
    expect(stats.duplicates).toBe(1);
    expect(stats.corrupt).toBe(1);
    expect(stats.concealedFrames).toBe(1);
    // Every frame the session gets is 20 ms at 16 kHz.
    expect(frames.every((f) => f.length === 320)).toBe(true);
    expect(frames.length).toBeGreaterThanOrEqual(8);
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
