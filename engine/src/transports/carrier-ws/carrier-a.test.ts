import { describe, expect, it } from 'vitest';
import { CARRIER_A_L16_BYTE_ORDER, carrierA, extraHeaders } from './carrier-a.ts';
import type { StreamStart } from './carrier-protocol.ts';

const startMessage = (encoding: string, sampleRate: number) =>
  JSON.stringify({
    event: 'start',
    sequenceNumber: 1,
    start: {
      callId: '12345678-1234-1234-1234-123456789abc',
      streamId: '87654321-4321-4321-4321-cba987654321',
      accountId: 'MAXXXXXXXXXXXXXXXXXX',
      tracks: ['inbound'],
      mediaFormat: { encoding, sampleRate },
    },
    extra_headers: 'userId=12345;sessionId=abc-xyz',
  });

describe('carrier-a (Plivo audio streams) messages', () => {
  it('reads the documented start in each of its three formats', () => {
    expect(carrierA.parse(startMessage('audio/x-mulaw', 8000))).toEqual({
      type: 'start',
      start: {
        streamId: '87654321-4321-4321-4321-cba987654321',
        callId: '12345678-1234-1234-1234-123456789abc',
        accountId: 'MAXXXXXXXXXXXXXXXXXX',
        format: { encoding: 'mulaw', sampleRate: 8000, byteOrder: 'le' },
        parameters: { userId: '12345', sessionId: 'abc-xyz' },
      },
    });
    expect(carrierA.parse(startMessage('audio/x-l16', 8000))).toMatchObject({
      start: { format: { encoding: 'l16', sampleRate: 8000, byteOrder: CARRIER_A_L16_BYTE_ORDER } },
    });
    expect(carrierA.parse(startMessage('audio/x-l16', 16000))).toMatchObject({
      start: { format: { encoding: 'l16', sampleRate: 16000 } },
    });
    expect(carrierA.parse(startMessage('audio/x-mulaw', 16000))).toMatchObject({ type: 'malformed' });
    expect(carrierA.parse(startMessage('audio/opus', 48000))).toMatchObject({ type: 'malformed' });
  });

  it('reads media, dtmf, playedStream (and its older name played) and clearedAudio', () => {
    expect(
      carrierA.parse(
        '{"event":"media","sequenceNumber":42,"streamId":"s","media":{"track":"inbound","timestamp":"1705312200000","chunk":41,"payload":"AAAA"}}',
      ),
    ).toEqual({ type: 'media', payload: 'AAAA', chunk: 41 });
    expect(
      carrierA.parse(
        '{"event":"dtmf","sequenceNumber":7,"streamId":"s","dtmf":{"track":"inbound","digit":"#","timestamp":"1"}}',
      ),
    ).toEqual({ type: 'dtmf', digit: '#' });
    expect(carrierA.parse('{"event":"playedStream","sequenceNumber":9,"streamId":"s","name":"t3c1"}')).toEqual({
      type: 'mark',
      name: 't3c1',
    });
    expect(carrierA.parse('{"event":"played","streamId":"s","name":"greeting"}')).toEqual({
      type: 'mark',
      name: 'greeting',
    });
    expect(carrierA.parse('{"event":"clearedAudio","sequenceNumber":0,"streamId":"s"}')).toEqual({ type: 'cleared' });
    expect(carrierA.parse('{"event":"playedStream","streamId":"s"}')).toMatchObject({ type: 'malformed' });
    expect(carrierA.parse('{"event":"media","media":{"track":"outbound","payload":"AAAA"}}')).toMatchObject({
      type: 'skip',
    });
    expect(carrierA.parse('{"event":"checkpoint"}')).toEqual({ type: 'unknown', event: 'checkpoint' });
  });

  it('writes playAudio in the stream’s own format, checkpoint, clearAudio and sendDTMF', () => {
    const start: StreamStart = {
      streamId: 'sid',
      format: { encoding: 'l16', sampleRate: 16000, byteOrder: 'le' },
      parameters: {},
    };
    expect(JSON.parse(carrierA.encodeMedia(start, 'AAEC'))).toEqual({
      event: 'playAudio',
      streamId: 'sid',
      media: { contentType: 'audio/x-l16', sampleRate: 16000, payload: 'AAEC' },
    });
    expect(
      JSON.parse(
        carrierA.encodeMedia({ ...start, format: { encoding: 'mulaw', sampleRate: 8000, byteOrder: 'le' } }, 'AA=='),
      ),
    ).toMatchObject({ media: { contentType: 'audio/x-mulaw', sampleRate: 8000 } });
    expect(JSON.parse(carrierA.encodeMark(start, 't1c0'))).toEqual({
      event: 'checkpoint',
      streamId: 'sid',
      name: 't1c0',
    });
    expect(JSON.parse(carrierA.encodeClear(start))).toEqual({ event: 'clearAudio', streamId: 'sid' });
    expect(JSON.parse(carrierA.encodeDigits!(start, '42'))).toEqual({ event: 'sendDTMF', dtmf: '42' });
    expect(carrierA.marksOnClear).toBe('dropped');
  });

  it('reads extraHeaders joined by semicolons or commas', () => {
    expect(extraHeaders('a=1;b=2,c = 3;;bad')).toEqual({ a: '1', b: '2', c: '3' });
    expect(extraHeaders(undefined)).toEqual({});
  });
});
