/**
 * One call leg's RTP (docs/architecture.md §11): G.711 at 8 kHz in 20 ms packets both ways, RFC 4733 DTMF both
 * ways, on the socket of a port lease.
 *
 * - In: packets of the negotiated payload type are decoded and pass the engine's jitter buffer (sequence numbers
 *   wrap at 65536, a missing packet is waited for 40 ms and concealed), then go out as 20 ms frames of PCM16.
 *   Telephone-events are reported once per key press, at their end packet (the three repeated ends dedup by
 *   timestamp). Symmetric RTP: we send to where the peer's packets come from, not only where its SDP said.
 * - Out: 8 kHz PCM is framed, encoded and queued; the process's pacing clock takes one packet per 20 ms tick.
 *   Every call's packet leaves inside the same tick, so the send path is kept short: audio is encoded straight
 *   into its packet's buffer when it is queued (the tick writes only the header), and the packet goes to the
 *   socket at once (the port pool's sockets resolve IP literals without dns.lookup's deferral, and no per-packet
 *   completion callback is made: a send error goes to the socket's 'error' listener).
 *   Marks in the queue are reported when the audio before them has gone; `clear` drops audio and marks queued.
 *   With nothing queued we send silence, so the peer's jitter buffer and NAT bindings stay alive. Digits to send
 *   take the place of audio for their ticks.
 */
import { randomInt } from 'node:crypto';
import {
  decodeAlaw,
  decodeMulaw,
  encodeAlaw,
  encodeMulaw,
  Framer,
  JitterBuffer,
  ALAW_SILENCE,
  ULAW_SILENCE,
  type ClockOutput,
  type PacingClock,
} from '@parley/engine/audio';
import type { Codec } from '../sip/sdp.ts';
import type { PortLease } from './port-pool.ts';
import {
  isDtmfKey,
  parseRtp,
  parseTelephoneEvent,
  RTP_HEADER_BYTES,
  writeRtpHeader,
  writeTelephoneEvent,
} from './rtp-packet.ts';

/** Samples in one 20 ms packet at 8 kHz. */
export const RTP_FRAME_SAMPLES = 160;
/** How long a missing packet is waited for, ms: covers ordinary internet reordering at two packets' delay. */
export const RTP_JITTER_TARGET_MS = 40;
/** Agent audio queued for sending, at most: 30 s; the engine paces its output, so only a stall comes near it. */
const MAX_QUEUED_FRAMES = 1_500;
/** A telephone-event we send lasts 160 ms (8 packets), then 3 end packets, then 60 ms of silence before the next. */
const DTMF_TONE_TICKS = 8;
const DTMF_END_REPEATS = 3;
const DTMF_GAP_TICKS = 3;
/** A latched peer silent this long may be replaced by a new source (it moved: NAT rebinding, re-INVITE), ms. */
const RELATCH_AFTER_MS = 1_000;

export interface RtpRemote {
  address: string;
  port: number;
}

export interface RtpSessionOptions {
  codec: Codec;
  payloadType: number;
  /** The peer's telephone-event payload type; undefined: DTMF is not sent, and only heard if it sends it anyway. */
  telephoneEvent: number | undefined;
  remote: RtpRemote;
  /** Whether we may send (false on hold: the peer's sendonly/inactive). */
  sending: boolean;
  clock: PacingClock;
  /** 20 ms of the caller's audio, 8 kHz PCM16. */
  onAudio(samples: Int16Array): void;
  onDtmf(digit: string): void;
  /** Everything queued before mark `name` has been sent. */
  onMark(name: string): void;
}

export interface RtpStats {
  received: number;
  lost: number;
  late: number;
  duplicate: number;
  sent: number;
  /** Packets of agent audio among them (the rest is idle silence and DTMF). */
  audioSent: number;
  /** Agent frames dropped because the queue was full. */
  overflow: number;
  dtmfIn: number;
  dtmfOut: number;
}

/** Queued audio is a whole packet: its payload encoded at RTP_HEADER_BYTES, its header written when it is sent. */
type Queued = { type: 'audio'; packet: Buffer } | { type: 'mark'; name: string };

export class RtpSession implements ClockOutput {
  readonly #lease: PortLease;
  readonly #options: RtpSessionOptions;
  readonly #jitter = new JitterBuffer({
    frameSamples: RTP_FRAME_SAMPLES,
    targetDepthMs: RTP_JITTER_TARGET_MS,
    sequenceModulus: 65_536,
  });
  /** Incoming packets of another ptime are framed here instead (no jitter buffering: rare, and never reordered). */
  readonly #inFramer = new Framer(RTP_FRAME_SAMPLES);
  readonly #outFramer = new Framer(RTP_FRAME_SAMPLES);
  #queue: Queued[] = [];
  #digits: string[] = [];
  #dtmf: { digit: string; tick: number; timestamp: number } | undefined;
  #gap = 0;
  #remote: RtpRemote;
  #latched = false;
  #lastFromRemote = 0;
  #lastReceivedAt = performance.now();
  #lastEventTimestamp: number | undefined;
  #codec: Codec;
  #payloadType: number;
  #telephoneEvent: number | undefined;
  #sending: boolean;
  readonly #ssrc = randomInt(0, 2 ** 32);
  #sequence = randomInt(0, 65_536);
  #timestamp = randomInt(0, 2 ** 32);
  #marker = true;
  #closed = false;
  readonly #stats = { received: 0, sent: 0, audioSent: 0, overflow: 0, dtmfIn: 0, dtmfOut: 0 };
  /** One packet's payload of G.711 silence in the current codec. */
  #silence: Buffer;

  constructor(lease: PortLease, options: RtpSessionOptions) {
    this.#lease = lease;
    this.#options = options;
    this.#remote = options.remote;
    this.#codec = options.codec;
    this.#payloadType = options.payloadType;
    this.#telephoneEvent = options.telephoneEvent;
    this.#sending = options.sending;
    this.#silence = silencePayload(options.codec);
    lease.socket.on('message', (data, info) => this.#receive(data, info.address, info.port));
    options.clock.attach(this);
  }

  get port(): number {
    return this.#lease.port;
  }

  get closed(): boolean {
    return this.#closed;
  }

  get remote(): RtpRemote {
    return this.#remote;
  }

  /** When the last packet came, performance.now() ms (the leg's RTP inactivity check reads it). */
  get lastReceivedAt(): number {
    return this.#lastReceivedAt;
  }

  get stats(): RtpStats {
    const jitter = this.#jitter.stats;
    return {
      ...this.#stats,
      lost: jitter.concealed,
      late: jitter.late,
      duplicate: jitter.duplicate,
    };
  }

  /** A re-INVITE changed the peer's address, codec or direction (hold, resume). */
  update(
    remote: RtpRemote,
    codec: Codec,
    payloadType: number,
    telephoneEvent: number | undefined,
    sending: boolean,
  ): void {
    if (remote.address !== this.#remote.address || remote.port !== this.#remote.port) {
      this.#remote = remote;
      this.#latched = false;
    }
    if (codec !== this.#codec) this.#silence = silencePayload(codec);
    this.#codec = codec;
    this.#payloadType = payloadType;
    this.#telephoneEvent = telephoneEvent;
    if (sending && !this.#sending) this.#marker = true;
    this.#sending = sending;
  }

  /** Agent audio, 8 kHz PCM16, any length: queued in 20 ms packets. */
  send(samples: Int16Array): void {
    if (this.#closed) return;
    for (const frame of this.#outFramer.push(samples)) {
      if (this.#queue.length >= MAX_QUEUED_FRAMES) {
        this.#stats.overflow += 1;
        continue;
      }
      const packet = Buffer.allocUnsafe(RTP_HEADER_BYTES + RTP_FRAME_SAMPLES);
      const payload = packet.subarray(RTP_HEADER_BYTES);
      if (this.#codec === 'PCMU') encodeMulaw(frame, payload);
      else encodeAlaw(frame, payload);
      this.#queue.push({ type: 'audio', packet });
    }
  }

  mark(name: string): void {
    if (this.#closed) return;
    this.#queue.push({ type: 'mark', name });
    this.#releaseMarks();
  }

  /** Barge-in: what is queued never plays, and its marks are never reported. */
  clear(): void {
    this.#queue = [];
    this.#outFramer.flush();
  }

  /** Queues RFC 4733 events for `digits` (those that are DTMF keys); ignored when the peer took no telephone-event. */
  sendDigits(digits: string): void {
    if (this.#telephoneEvent === undefined) return;
    for (const key of digits) if (isDtmfKey(key)) this.#digits.push(key.toUpperCase());
  }

  /** One 20 ms tick of the pacing clock: one packet out. */
  tick(): void {
    if (this.#closed) return;
    this.#timestamp = (this.#timestamp + RTP_FRAME_SAMPLES) >>> 0;
    if (this.#sendDtmfTick()) return;
    const next = this.#queue[0];
    let packet: Buffer | undefined;
    if (next?.type === 'audio') {
      this.#queue.shift();
      packet = next.packet;
    }
    this.#releaseMarks();
    if (!this.#sending) return;
    if (packet) this.#stats.audioSent += 1;
    else {
      // A fresh buffer each time, never a shared one: a send the kernel could not take at once keeps its buffer
      // until it goes, and a later tick must not overwrite it.
      packet = Buffer.allocUnsafe(RTP_HEADER_BYTES + this.#silence.length);
      this.#silence.copy(packet, RTP_HEADER_BYTES);
    }
    this.#send(packet, this.#payloadType, this.#timestamp);
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#queue = [];
    this.#options.clock.detach(this);
    this.#lease.release();
  }

  #releaseMarks(): void {
    while (this.#queue[0]?.type === 'mark') this.#options.onMark((this.#queue.shift() as { name: string }).name);
  }

  /** Sends this tick's telephone-event packet, if a digit is playing; true when it took the tick. */
  #sendDtmfTick(): boolean {
    if (this.#gap > 0) {
      this.#gap -= 1;
      return false;
    }
    if (!this.#dtmf) {
      const digit = this.#digits.shift();
      if (digit === undefined || this.#telephoneEvent === undefined) return false;
      this.#dtmf = { digit, tick: 0, timestamp: this.#timestamp };
      this.#marker = true;
    }
    const dtmf = this.#dtmf;
    const ticks = dtmf.tick + 1;
    const ending = ticks > DTMF_TONE_TICKS;
    const duration = Math.min(ticks, DTMF_TONE_TICKS) * RTP_FRAME_SAMPLES;
    if (this.#sending && this.#telephoneEvent !== undefined) {
      const payload = writeTelephoneEvent({ digit: dtmf.digit, end: ending, volume: 10, duration });
      const packet = Buffer.allocUnsafe(RTP_HEADER_BYTES + payload.length);
      payload.copy(packet, RTP_HEADER_BYTES);
      this.#send(packet, this.#telephoneEvent, dtmf.timestamp);
    }
    dtmf.tick = ticks;
    if (ticks >= DTMF_TONE_TICKS + DTMF_END_REPEATS) {
      this.#dtmf = undefined;
      this.#gap = DTMF_GAP_TICKS;
      this.#stats.dtmfOut += 1;
      this.#marker = true;
    }
    return true;
  }

  /** Sends `packet` (its payload in place) with this leg's next header. */
  #send(packet: Buffer, payloadType: number, timestamp: number): void {
    writeRtpHeader(packet, this.#marker, payloadType, this.#sequence, timestamp, this.#ssrc);
    this.#marker = false;
    this.#sequence = (this.#sequence + 1) & 0xffff;
    this.#stats.sent += 1;
    if (this.#remote.port === 0) return; // the SDP's "port 0": a stream refused, nowhere to send
    // No callback: one closure and one completion tick fewer per packet; errors (ICMP unreachable from a peer
    // that went away) reach the lease socket's 'error' listener.
    this.#lease.socket.send(packet, this.#remote.port, this.#remote.address);
  }

  #receive(data: Buffer, address: string, port: number): void {
    if (this.#closed) return;
    const packet = parseRtp(data);
    if (!packet) return;
    const audio = packet.payloadType === this.#payloadType;
    const event = packet.payloadType === this.#telephoneEvent;
    if (!audio && !event) return;
    const now = performance.now();
    const fromRemote = address === this.#remote.address && port === this.#remote.port;
    // Port 0 cannot be answered (SIPp's pcap player sends from it): such packets are heard, never latched onto.
    if (!fromRemote && port !== 0) {
      // Symmetric RTP: latch onto the first source, and move only once the latched one has gone quiet.
      if (this.#latched && now - this.#lastFromRemote < RELATCH_AFTER_MS) return;
      this.#remote = { address, port };
    }
    if (port !== 0) {
      this.#latched = true;
      this.#lastFromRemote = now;
    }
    this.#lastReceivedAt = now;
    this.#stats.received += 1;
    if (event) return this.#receiveEvent(packet.payload, packet.timestamp);
    const samples = this.#codec === 'PCMU' ? decodeMulaw(packet.payload) : decodeAlaw(packet.payload);
    if (samples.length === RTP_FRAME_SAMPLES) {
      this.#jitter.push({ sequence: packet.sequence, timestamp: packet.timestamp, samples });
      for (let frame = this.#jitter.pull(); frame; frame = this.#jitter.pull()) this.#options.onAudio(frame.samples);
    } else {
      for (const frame of this.#inFramer.push(samples)) this.#options.onAudio(frame);
    }
  }

  #receiveEvent(payload: Buffer, timestamp: number): void {
    const event = parseTelephoneEvent(payload);
    if (!event?.end || timestamp === this.#lastEventTimestamp) return;
    this.#lastEventTimestamp = timestamp;
    this.#stats.dtmfIn += 1;
    this.#options.onDtmf(event.digit);
  }
}

function silencePayload(codec: Codec): Buffer {
  return Buffer.alloc(RTP_FRAME_SAMPLES, codec === 'PCMU' ? ULAW_SILENCE : ALAW_SILENCE);
}
