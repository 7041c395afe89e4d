/**
 * The SIP gateway's media bridge as a MediaTransport (docs/architecture.md §11, protocol/sip.ts): a call's audio
 * over the bus instead of a websocket. The gateway speaks RTP to the phone; here only PCM16 at 8 kHz arrives
 * (`v1.media.<callId>.in`) and leaves (`.out`).
 *
 * - In: audio frames pass the same path as a carrier's μ-law (inbound-audio.ts): gaps in their sequence numbers
 *   concealed, resampled to 16 kHz with the telephone-band filter, framed at 20 ms. DTMF, mark echoes and `stop`
 *   follow in order.
 * - Out: each 16 kHz frame the pacing clock hands over is resampled to 8 kHz and published as 20 ms frames; the
 *   gateway paces them onto RTP. A mark flushes the resampler first, so it follows all of its clause's audio.
 *   `clear` (barge-in) drops what the gateway queued and forgets the pending marks: it never echoes them.
 * - A malformed message is counted and ignored; only `stop` (or our own hangup) ends the call.
 */
import { pcm16FromBytesLE } from '../../audio/pcm16.ts';
import type { Bus } from '../../bus/index.ts';
import {
  decodeAudioFrame,
  encodeAudioFrame,
  isAudioFrame,
  SIP_MEDIA_SAMPLE_RATE,
  SIP_TRANSFER_TIMEOUT_MS,
  sipCodecs,
  subjects,
  type MediaBridgeOutbound,
} from '../../protocol/index.ts';
import { Channel } from '../../streams/channel.ts';
import { CarrierPayloadEncoder } from '../carrier-ws/carrier-payload-encoder.ts';
import type { StreamFormat } from '../carrier-ws/carrier-protocol.ts';
import { InboundAudio } from '../carrier-ws/inbound-audio.ts';
import type { MediaTransport, TransportEvent } from '../media-transport.ts';

/** Caller events held for the session, at most: 5 s of frames, as for a carrier stream (carrier-transport.ts). */
const INBOUND_EVENT_CAPACITY = 250;
/** Marks awaiting their echo, at most: one per clause; a gateway that never echoes loses the oldest. */
const MAX_PENDING_MARKS = 256;
/** Bytes of one 20 ms frame of 8 kHz PCM16: the unit the gateway's RTP packets are cut from. */
const FRAME_BYTES = (SIP_MEDIA_SAMPLE_RATE / 50) * 2;
const BRIDGE_FORMAT: StreamFormat = { encoding: 'l16', sampleRate: SIP_MEDIA_SAMPLE_RATE, byteOrder: 'le' };

export interface BusBridgeStats {
  framesIn: number;
  framesOut: number;
  malformed: number;
  marksSent: number;
  marksPlayed: number;
  clears: number;
}

export class BusBridgeTransport implements MediaTransport {
  readonly echoes = false;
  readonly #bus: Bus;
  readonly #callId: string;
  readonly #events = new Channel<TransportEvent>(INBOUND_EVENT_CAPACITY, 'drop-oldest', {
    evictable: (e) => e.type === 'audio',
  });
  readonly #inbound = new InboundAudio(BRIDGE_FORMAT, (samples) => this.#events.push({ type: 'audio', samples }));
  readonly #encoder = new CarrierPayloadEncoder(BRIDGE_FORMAT, 20, FRAME_BYTES);
  #pendingMarks: string[] = [];
  #sequence = 0;
  #ended = false;
  /** The transfer asked of the gateway, until its `transfer_result` (or the bridge's end) settles it. */
  #transferring: { settle: (failure?: Error) => void } | undefined;
  readonly #stats: BusBridgeStats = {
    framesIn: 0,
    framesOut: 0,
    malformed: 0,
    marksSent: 0,
    marksPlayed: 0,
    clears: 0,
  };

  constructor(bus: Bus, callId: string) {
    this.#bus = bus;
    this.#callId = callId;
  }

  get events(): AsyncIterable<TransportEvent> {
    return this.#events;
  }

  get stats(): Readonly<BusBridgeStats> {
    return this.#stats;
  }

  /** One message from the gateway on `v1.media.<callId>.in`, after its `start`. */
  receive(data: Uint8Array): void {
    if (this.#ended) return;
    if (isAudioFrame(data)) {
      try {
        const frame = decodeAudioFrame(data);
        if (frame.sampleRate !== SIP_MEDIA_SAMPLE_RATE) throw new Error('not 8 kHz');
        this.#stats.framesIn += 1;
        this.#inbound.push(frame.samples, frame.sequence);
      } catch {
        this.#stats.malformed += 1;
      }
      return;
    }
    let message;
    try {
      message = sipCodecs.bridgeIn.decode(data);
    } catch {
      this.#stats.malformed += 1;
      return;
    }
    switch (message.type) {
      case 'start':
        this.#stats.malformed += 1; // a second start
        return;
      case 'dtmf':
        this.#events.push({ type: 'dtmf', digit: message.digit });
        return;
      case 'mark': {
        const at = this.#pendingMarks.indexOf(message.name);
        if (at < 0) return;
        for (const name of this.#pendingMarks.splice(0, at + 1)) {
          this.#stats.marksPlayed += 1;
          this.#events.push({ type: 'mark', name });
        }
        return;
      }
      case 'transfer_result':
        this.#transferring?.settle(
          message.ok ? undefined : new Error(`transfer failed: ${message.reason} (SIP ${message.sipStatus ?? '-'})`),
        );
        return;
      case 'stop':
        this.#events.push({ type: 'hangup', reason: `sip: ${message.reason}` });
        this.#end();
    }
  }

  send(samples: Int16Array): void {
    if (this.#ended) return;
    for (const payload of this.#encoder.push(samples)) this.#sendFrame(payload);
  }

  mark(name: string): void {
    if (this.#ended) return;
    for (const payload of this.#encoder.flush()) this.#sendFrame(payload);
    this.#publish({ type: 'mark', name });
    this.#stats.marksSent += 1;
    this.#pendingMarks.push(name);
    if (this.#pendingMarks.length > MAX_PENDING_MARKS) this.#pendingMarks.shift();
  }

  clear(): void {
    if (this.#ended) return;
    this.#encoder.reset();
    this.#publish({ type: 'clear' });
    this.#stats.clears += 1;
    this.#pendingMarks = [];
  }

  hangup(reason: string): void {
    if (this.#ended) return;
    this.#publish({ type: 'hangup', reason });
    this.#end();
  }

  sendDigits(digits: string): void {
    if (this.#ended || !/^[0-9*#A-Da-d]+$/.test(digits)) return;
    this.#publish({ type: 'dtmf', digits: digits.toUpperCase() });
  }

  /**
   * Asks the gateway to move the caller (REFER where its configuration allows it, else a bridged new leg) and
   * waits for its `transfer_result`: it throws when the transfer failed, so the agent stays on the line.
   */
  async transfer(to: string): Promise<void> {
    if (this.#ended) throw new Error('the call has ended');
    if (this.#transferring) throw new Error('a transfer is already under way');
    const outcome = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => this.#transferring?.settle(new Error('the gateway never said how the transfer went')),
        SIP_TRANSFER_TIMEOUT_MS + 5_000,
      );
      this.#transferring = {
        settle: (failure) => {
          clearTimeout(timer);
          this.#transferring = undefined;
          if (failure) reject(failure);
          else resolve();
        },
      };
    });
    this.#publish({ type: 'transfer', to });
    await outcome;
  }

  /** Ends the transport without telling the gateway (the engine is closing, or the gateway already stopped). */
  end(): void {
    this.#end();
  }

  #sendFrame(payload: Buffer): void {
    this.#stats.framesOut += 1;
    this.#bus.publish(
      subjects.mediaOut(this.#callId),
      encodeAudioFrame({
        sampleRate: SIP_MEDIA_SAMPLE_RATE,
        requestNumber: 0,
        sequence: this.#sequence++,
        samples: pcm16FromBytesLE(payload),
      }),
    );
  }

  #publish(message: MediaBridgeOutbound): void {
    this.#bus.publish(subjects.mediaOut(this.#callId), sipCodecs.bridgeOut.encode(message));
  }

  #end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#transferring?.settle(new Error('the bridge closed during the transfer'));
    this.#events.end();
  }
}
