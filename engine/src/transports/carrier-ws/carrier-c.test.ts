import { describe, expect, it } from 'vitest';
import { carrierC } from './carrier-c.ts';
import type { StreamStart } from './carrier-protocol.ts';

describe('carrier-c (Exotel-style voicebot stream) messages', () => {
  it('reads the documented connected, start, media, dtmf, mark and stop messages', () => {
    expect(carrierC.parse('{"event":"connected"}')).toEqual({ type: 'connected' });
    expect(
      carrierC.parse(
        JSON.stringify({
          event: 'start',
          sequence_number: '1',
          stream_sid: 'MZ1',
          start: {
            stream_sid: 'MZ1',
            call_sid: 'CA1',
            account_sid: 'AC1',
            from: '+919876543210',
            to: '+918047491899',
            custom_parameters: { key1: 'value1' },
            media_format: { encoding: 'audio/x-raw', sample_rate: '8000', bit_rate: '16' },
          },
        }),
      ),
    ).toEqual({
      type: 'start',
      start: {
        streamId: 'MZ1',
        callId: 'CA1',
        accountId: 'AC1',
        format: { encoding: 'l16', sampleRate: 8000, byteOrder: 'le' },
        parameters: { key1: 'value1', from: '+919876543210', to: '+918047491899' },
      },
    });
    expect(
      carrierC.parse(
        '{"event":"media","sequence_number":"3","stream_sid":"MZ1","media":{"chunk":"2","timestamp":"200","payload":"AAAA"}}',
      ),
    ).toEqual({ type: 'media', payload: 'AAAA', chunk: 2 });
    expect(
      carrierC.parse('{"event":"dtmf","sequence_number":"7","stream_sid":"MZ1","dtmf":{"digit":"5","duration":"100"}}'),
    ).toEqual({ type: 'dtmf', digit: '5' });
    expect(carrierC.parse('{"event":"mark","sequence_number":"15","stream_sid":"MZ1","mark":{"name":"t1c0"}}')).toEqual(
      { type: 'mark', name: 't1c0' },
    );
    expect(
      carrierC.parse(
        '{"event":"stop","sequence_number":"20","stream_sid":"MZ1","stop":{"call_sid":"CA1","account_sid":"AC1","reason":"callended"}}',
      ),
    ).toEqual({ type: 'stop', reason: 'callended' });
  });

  it('follows the sample rate the start names (8, 16 or 24 kHz), 8 kHz when it names none', () => {
    const start = (format: object) =>
      JSON.stringify({ event: 'start', start: { stream_sid: 'MZ1', media_format: format } });
    expect(carrierC.parse(start({ sample_rate: '16000' }))).toMatchObject({ start: { format: { sampleRate: 16000 } } });
    expect(carrierC.parse(start({ sample_rate: 24000 }))).toMatchObject({ start: { format: { sampleRate: 24000 } } });
    expect(carrierC.parse(start({}))).toMatchObject({ start: { format: { sampleRate: 8000 } } });
    expect(carrierC.parse(start({ sample_rate: '44100' }))).toMatchObject({ type: 'malformed' });
    expect(carrierC.parse('{"event":"start","start":{}}')).toEqual({
      type: 'malformed',
      why: 'start without stream_sid',
    });
  });

  it('writes media, mark and clear with stream_sid, in ~100 ms chunks of whole 320-byte blocks', () => {
    const start: StreamStart = {
      streamId: 'MZ1',
      format: { encoding: 'l16', sampleRate: 8000, byteOrder: 'le' },
      parameters: {},
    };
    expect(JSON.parse(carrierC.encodeMedia(start, 'AAAA'))).toEqual({
      event: 'media',
      stream_sid: 'MZ1',
      media: { payload: 'AAAA' },
    });
    expect(JSON.parse(carrierC.encodeMark(start, 'x'))).toEqual({
      event: 'mark',
      stream_sid: 'MZ1',
      mark: { name: 'x' },
    });
    expect(JSON.parse(carrierC.encodeClear(start))).toEqual({ event: 'clear', stream_sid: 'MZ1' });
    expect(carrierC.outboundChunkMs).toBe(100);
    expect(carrierC.outboundByteMultiple).toBe(320);
  });
});
