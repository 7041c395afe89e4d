import { describe, expect, it } from 'vitest';
import { carrierB } from './carrier-b.ts';
import type { StreamStart } from './carrier-protocol.ts';

const START: StreamStart = {
  streamId: 'MZ18ad3ab5a668481ce02b83e7395059f0',
  format: { encoding: 'mulaw', sampleRate: 8000, byteOrder: 'le' },
  parameters: {},
};

describe('carrier-b (Twilio Media Streams) messages', () => {
  it('reads the documented connected, start, media, dtmf, mark and stop messages', () => {
    expect(carrierB.parse('{"event":"connected","protocol":"Call","version":"1.0.0"}')).toEqual({ type: 'connected' });
    expect(
      carrierB.parse(
        JSON.stringify({
          event: 'start',
          sequenceNumber: '1',
          start: {
            accountSid: 'AC123',
            streamSid: 'MZ123',
            callSid: 'CA123',
            tracks: ['inbound'],
            customParameters: { FirstName: 'Jane', Attempt: 2 },
            mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 },
          },
          streamSid: 'MZ123',
        }),
      ),
    ).toEqual({
      type: 'start',
      start: {
        streamId: 'MZ123',
        callId: 'CA123',
        accountId: 'AC123',
        format: { encoding: 'mulaw', sampleRate: 8000, byteOrder: 'le' },
        parameters: { FirstName: 'Jane', Attempt: '2' },
      },
    });
    expect(
      carrierB.parse(
        '{"event":"media","sequenceNumber":"3","media":{"track":"inbound","chunk":"1","timestamp":"5","payload":"/w=="},"streamSid":"MZ123"}',
      ),
    ).toEqual({ type: 'media', payload: '/w==', chunk: 1 });
    expect(
      carrierB.parse(
        '{"event":"dtmf","streamSid":"MZ123","sequenceNumber":"5","dtmf":{"track":"inbound_track","digit":"1"}}',
      ),
    ).toEqual({ type: 'dtmf', digit: '1' });
    expect(carrierB.parse('{"event":"mark","sequenceNumber":"4","streamSid":"MZ123","mark":{"name":"t3c0"}}')).toEqual({
      type: 'mark',
      name: 't3c0',
    });
    expect(
      carrierB.parse(
        '{"event":"stop","sequenceNumber":"5","streamSid":"MZ123","stop":{"accountSid":"AC123","callSid":"CA123"}}',
      ),
    ).toEqual({ type: 'stop', reason: undefined });
  });

  it('takes a start without a media format as μ-law 8 kHz, and refuses any other format', () => {
    expect(carrierB.parse('{"event":"start","start":{"streamSid":"MZ1"}}')).toMatchObject({
      type: 'start',
      start: { format: { encoding: 'mulaw', sampleRate: 8000 } },
    });
    expect(
      carrierB.parse(
        '{"event":"start","start":{"streamSid":"MZ1","mediaFormat":{"encoding":"audio/x-l16","sampleRate":16000}}}',
      ),
    ).toMatchObject({ type: 'malformed' });
    expect(carrierB.parse('{"event":"start","start":{}}')).toEqual({
      type: 'malformed',
      why: 'start without streamSid',
    });
  });

  it('names what is wrong with a malformed message, never throwing', () => {
    expect(carrierB.parse('not json')).toEqual({ type: 'malformed', why: 'not JSON' });
    expect(carrierB.parse('[1]')).toEqual({ type: 'malformed', why: 'not a JSON object' });
    expect(carrierB.parse('{"event":7}')).toEqual({ type: 'malformed', why: 'no event' });
    expect(carrierB.parse('{"event":"media"}')).toEqual({ type: 'malformed', why: 'media without media object' });
    expect(carrierB.parse('{"event":"media","media":{}}')).toEqual({ type: 'malformed', why: 'media without payload' });
    expect(carrierB.parse('{"event":"media","media":{"payload":"a*b="}}')).toEqual({
      type: 'malformed',
      why: 'media payload is not base64',
    });
    expect(carrierB.parse('{"event":"dtmf","dtmf":{"digit":"12"}}')).toMatchObject({ type: 'malformed' });
    expect(carrierB.parse('{"event":"mark","mark":{}}')).toMatchObject({ type: 'malformed' });
    expect(carrierB.parse('{"event":"transcription"}')).toEqual({ type: 'unknown', event: 'transcription' });
  });

  it('skips media of a track other than the caller’s, and takes a chunk counter as a number or a string', () => {
    expect(carrierB.parse('{"event":"media","media":{"track":"outbound","payload":"/w=="}}')).toEqual({
      type: 'skip',
      event: 'media of track outbound',
    });
    expect(carrierB.parse('{"event":"media","media":{"chunk":7,"payload":"/w=="}}')).toEqual({
      type: 'media',
      payload: '/w==',
      chunk: 7,
    });
    expect(carrierB.parse('{"event":"media","media":{"chunk":"x","payload":""}}')).toEqual({
      type: 'media',
      payload: '',
      chunk: undefined,
    });
  });

  it('writes media, mark and clear as Twilio documents them, and cannot send DTMF', () => {
    expect(JSON.parse(carrierB.encodeMedia(START, 'AAEC'))).toEqual({
      event: 'media',
      streamSid: START.streamId,
      media: { payload: 'AAEC' },
    });
    expect(JSON.parse(carrierB.encodeMark(START, 't1c0'))).toEqual({
      event: 'mark',
      streamSid: START.streamId,
      mark: { name: 't1c0' },
    });
    expect(JSON.parse(carrierB.encodeClear(START))).toEqual({ event: 'clear', streamSid: START.streamId });
    expect(carrierB.encodeDigits).toBeUndefined();
    expect(carrierB.marksOnClear).toBe('echoed');
  });
});
