/**
 * carrier-b's media stream: Twilio Media Streams, bidirectional (`<Connect><Stream url="wss://…">` with
 * `<Parameter>`s), docs/architecture.md §5, in the shared Media Streams code (media-streams.ts). Audio both ways is
 * G.711 μ-law at 8 kHz, mono, base64, no headers; fields are camelCase (streamSid, callSid, customParameters).
 * A bidirectional stream carries the caller's track only, named `inbound` (or `inbound_track`); any other track is
 * not for us. Its stop says no reason.
 */
import { mediaStreamsProtocol } from './media-streams.ts';

const MULAW = 'audio/x-mulaw';
const MULAW_RATE = 8000;

export const carrierB = mediaStreamsProtocol({
  carrier: 'carrier-b',
  fields: {
    streamId: ['streamSid'],
    callId: ['callSid'],
    accountId: ['accountSid'],
    customParameters: ['customParameters'],
    mediaFormat: ['mediaFormat'],
    sampleRate: ['sampleRate'],
  },
  codec: (announced) =>
    !announced || (announced.encoding === MULAW && announced.sampleRate === MULAW_RATE)
      ? { encoding: 'mulaw', sampleRate: MULAW_RATE, byteOrder: 'le' }
      : {
          why: `start with media format ${announced.encoding ?? '?'} at ${announced.sampleRate ?? '?'} Hz (only ${MULAW} at ${MULAW_RATE})`,
        },
  callerTracks: ['inbound', 'inbound_track'],
  outboundChunkMs: 20,
  outboundByteMultiple: 1,
});
