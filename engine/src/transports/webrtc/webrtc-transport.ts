/**
 * A browser call as a MediaTransport (docs/architecture.md §16): signalling on the media server's websocket
 * (webrtc-signalling.ts), media over a werift peer connection — ICE on host candidates (loopback too when asked),
 * DTLS-SRTP, Opus both ways (opus-rtp.ts).
 *
 * - The browser offers; the engine answers with its host candidates inside the answer (no STUN or TURN: a browser
 *   that cannot reach a host address of the engine cannot call). `connected` resolves once ICE and DTLS are up,
 *   and only then does the call session start, so the greeting is not spoken into a connection still forming.
 * - Outbound: each frame the pacing clock hands over is encoded and sent at once. A WebRTC far end plays what
 *   arrives within its jitter buffer (tens of ms), so a mark is reported played as soon as the audio before it was
 *   sent — as the in-memory transport does. A clear has nothing queued here to drop (the session's paced output
 *   holds the queue); the next packet starts a new talkspurt.
 * - The call ends when the browser says `hangup` or closes the socket (a clean close), or is reported dropped when
 *   the socket is lost or the peer connection fails; the agent's hang-up sends `hangup`, closes the socket and the
 *   peer connection.
 */
import { RTCPeerConnection, RTCRtpCodecParameters, RtpHeader, RtpPacket, type RTCRtpTransceiver } from 'werift';
import { Channel } from '../../streams/channel.ts';
import type { MediaTransport, TransportEvent } from '../media-transport.ts';
import { CLOSE_CODES, type MediaSocket } from '../media-server/media-server.ts';
import { OpusDepacketiser, OpusRtpPacketiser } from './opus-rtp.ts';
import { encodeSignal, parseSignal, type IceCandidateInit, type SignalOut } from './webrtc-signalling.ts';

/** How long a browser has from opening the socket to a connected peer connection, ms: ICE on host candidates takes well under a second; 15 s covers a slow page. */
export const WEBRTC_CONNECT_TIMEOUT_MS = 15_000;
/** Caller events held for the session, at most: 5 s of 20 ms frames, as for carrier streams (INBOUND_EVENT_CAPACITY). */
const INBOUND_EVENT_CAPACITY = 250;
/** Candidates held while the offer is being applied, at most: a browser gathers a handful per interface. */
const MAX_EARLY_CANDIDATES = 32;
/** Distinct fault descriptions kept for the call's log. */
const MAX_FAULT_SAMPLES = 5;
/** Close codes that are a goodbye, not a loss: normal, going away, and a close frame without a code. */
const CLEAN_CLOSES = new Set<number>([CLOSE_CODES.normal, CLOSE_CODES.goingAway, 1005]);
/**
 * Opus as browsers offer it (RFC 7587 §7: always `opus/48000/2` in SDP, mono or not); in-band FEC on, so a lost
 * packet can be rebuilt from the next one's redundancy.
 */
const OPUS_CODEC = { mimeType: 'audio/opus', clockRate: 48_000, channels: 2, parameters: 'minptime=10;useinbandfec=1' };

export interface WebRtcTransportOptions {
  /** From socket open to connected, ms; WEBRTC_CONNECT_TIMEOUT_MS by default. */
  connectTimeoutMs?: number;
  /** Host addresses to offer besides the machine's interfaces (e.g. 127.0.0.1, which ICE leaves out by default). */
  extraHostAddresses?: string[];
}

export interface WebRtcStats {
  messages: number;
  malformed: number;
  faults: string[];
  candidates: number;
  packetsIn: number;
  corruptPackets: number;
  duplicatePackets: number;
  latePackets: number;
  concealedFrames: number;
  droppedFrames: number;
  packetsOut: number;
  marks: number;
  clears: number;
}

type State = 'signalling' | 'connected' | 'ended';

export class WebRtcTransport implements MediaTransport {
  readonly echoes = false;
  /** Resolves when ICE and DTLS are up; rejects when the socket closes, the connection fails or time runs out first. */
  readonly connected: Promise<void>;
  readonly #socket: MediaSocket;
  readonly #options: WebRtcTransportOptions;
  readonly #events = new Channel<TransportEvent>(INBOUND_EVENT_CAPACITY, 'drop-oldest', {
    evictable: (e) => e.type === 'audio',
  });
  readonly #packetiser = new OpusRtpPacketiser();
  readonly #depacketiser: OpusDepacketiser;
  readonly #stats = {
    messages: 0,
    malformed: 0,
    faults: [] as string[],
    candidates: 0,
    packetsOut: 0,
    marks: 0,
    clears: 0,
  };
  #state: State = 'signalling';
  #pc: RTCPeerConnection | undefined;
  /** Candidates that came before the offer was applied, in order. */
  readonly #earlyCandidates: IceCandidateInit[] = [];
  #transceiver: RTCRtpTransceiver | undefined;
  #resolveConnected!: () => void;
  #rejectConnected!: (error: Error) => void;
  readonly #timer: NodeJS.Timeout;

  constructor(socket: MediaSocket, options: WebRtcTransportOptions = {}) {
    this.#socket = socket;
    this.#options = options;
    this.#depacketiser = new OpusDepacketiser((samples) => this.#events.push({ type: 'audio', samples }));
    this.connected = new Promise<void>((resolve, reject) => {
      this.#resolveConnected = resolve;
      this.#rejectConnected = reject;
    });
    this.connected.catch(() => {}); // a caller that never asks is not an unhandled rejection
    this.#timer = setTimeout(() => {
      this.#rejectConnected(new Error('the browser did not connect in time'));
      this.hangup('no connection', CLOSE_CODES.policy);
    }, options.connectTimeoutMs ?? WEBRTC_CONNECT_TIMEOUT_MS);
    this.#timer.unref();
    socket.listen({
      message: (data, binary) => this.#onMessage(data, binary),
      closed: (code, reason) => this.#onClosed(code, reason),
    });
  }

  get events(): AsyncIterable<TransportEvent> {
    return this.#events;
  }

  get stats(): WebRtcStats {
    const inbound = this.#depacketiser.stats;
    return {
      ...this.#stats,
      faults: [...this.#stats.faults],
      packetsIn: inbound.packets,
      corruptPackets: inbound.corrupt,
      duplicatePackets: inbound.duplicates,
      latePackets: inbound.late,
      concealedFrames: inbound.concealedFrames,
      droppedFrames: this.#events.dropped,
    };
  }

  send(samples: Int16Array): void {
    if (this.#state !== 'connected' || !this.#transceiver) return;
    const rtp = this.#packetiser.packet(samples);
    const header = new RtpHeader({
      sequenceNumber: rtp.sequenceNumber,
      timestamp: rtp.timestamp,
      marker: rtp.marker,
    });
    // The sender stamps its SSRC and the negotiated payload type, and encrypts (SRTP).
    void this.#transceiver.sender.sendRtp(new RtpPacket(header, rtp.payload)).catch(() => {});
    this.#stats.packetsOut += 1;
  }

  mark(name: string): void {
    if (this.#state !== 'connected') return;
    this.#stats.marks += 1;
    this.#events.push({ type: 'mark', name });
  }

  clear(): void {
    if (this.#state !== 'connected') return;
    this.#stats.clears += 1;
    this.#packetiser.interrupt();
  }

  hangup(reason: string, code: number = CLOSE_CODES.normal): void {
    if (this.#state !== 'ended') {
      this.#signal({ type: 'hangup', reason });
      this.#end();
    }
    this.#socket.close(code, reason);
  }

  #signal(message: SignalOut): void {
    this.#socket.send(encodeSignal(message));
  }

  #onMessage(data: string, binary: boolean): void {
    this.#stats.messages += 1;
    if (this.#state === 'ended') return;
    if (binary) return this.#fault('binary message');
    const message = parseSignal(data);
    switch (message.type) {
      case 'malformed':
        return this.#fault(message.why);
      case 'offer':
        if (this.#pc) return this.#fault('a second offer');
        return void this.#answer(message.sdp).catch((error: unknown) => {
          this.#fault(`offer refused: ${(error as Error).message}`);
          this.#rejectConnected(new Error(`the offer could not be answered: ${(error as Error).message}`));
          this.hangup('offer refused', CLOSE_CODES.unsupported);
        });
      case 'candidate':
        // Candidates may race ahead of the offer's answer: held until the offer is applied.
        if (!this.#transceiver) {
          if (this.#earlyCandidates.length >= MAX_EARLY_CANDIDATES) return this.#fault('too many early candidates');
          this.#earlyCandidates.push(message.candidate);
          return;
        }
        return this.#addCandidate(this.#pc!, message.candidate);
      case 'hangup':
        this.#events.push({ type: 'hangup', reason: 'caller hung up' });
        this.#end();
        this.#socket.close(CLOSE_CODES.normal, 'caller hung up');
    }
  }

  async #answer(sdp: string): Promise<void> {
    const pc = new RTCPeerConnection({
      codecs: { audio: [new RTCRtpCodecParameters(OPUS_CODEC)] },
      iceUseIpv4: true,
      iceUseIpv6: false,
      iceAdditionalHostAddresses: this.#options.extraHostAddresses,
    });
    this.#pc = pc;
    pc.connectionStateChange.subscribe((state) => this.#onConnectionState(state));
    // Subscribed before the offer is applied: werift may announce the browser's track while applying it.
    pc.onTrack.subscribe((track) => {
      if (track.kind !== 'audio') return;
      track.onReceiveRtp.subscribe((rtp) => {
        if (this.#state === 'connected') this.#depacketiser.push(rtp.header.sequenceNumber, rtp.payload);
      });
    });
    await pc.setRemoteDescription({ type: 'offer', sdp });
    const transceiver = pc.getTransceivers().find((t) => t.kind === 'audio');
    if (!transceiver) throw new Error('the offer has no audio');
    transceiver.setDirection('sendrecv');
    this.#transceiver = transceiver;
    for (const candidate of this.#earlyCandidates.splice(0)) this.#addCandidate(pc, candidate);
    await pc.setLocalDescription(await pc.createAnswer());
    if (this.#state === 'ended') return;
    this.#signal({ type: 'answer', sdp: pc.localDescription!.sdp });
  }

  #addCandidate(pc: RTCPeerConnection, candidate: IceCandidateInit): void {
    this.#stats.candidates += 1;
    // An empty candidate line is the end of candidates; a bad one is the browser's problem, not the call's.
    void pc.addIceCandidate(candidate).catch(() => this.#fault('candidate refused'));
  }

  #onConnectionState(state: string): void {
    if (this.#state === 'ended') return;
    if (state === 'connected' && this.#state === 'signalling') {
      clearTimeout(this.#timer);
      this.#state = 'connected';
      this.#resolveConnected();
      return;
    }
    if (state === 'failed' || state === 'closed') {
      this.#rejectConnected(new Error(`the peer connection ${state}`));
      this.#events.push({ type: 'hangup', reason: `peer connection ${state}`, dropped: true });
      this.#end();
      this.#socket.close(CLOSE_CODES.normal, `peer connection ${state}`);
    }
  }

  #onClosed(code: number, reason: string): void {
    this.#rejectConnected(
      new Error(`the socket closed before the call connected (${code}${reason ? ` ${reason}` : ''})`),
    );
    if (this.#state === 'ended') return;
    const dropped = !CLEAN_CLOSES.has(code);
    this.#events.push({
      type: 'hangup',
      reason: dropped ? `media connection lost (${code})` : 'caller hung up',
      dropped,
    });
    this.#end();
  }

  #end(): void {
    if (this.#state === 'ended') return;
    this.#state = 'ended';
    clearTimeout(this.#timer);
    this.#rejectConnected(new Error('the call ended before it connected'));
    this.#events.end();
    this.#packetiser.close();
    this.#depacketiser.close();
    void this.#pc?.close().catch(() => {});
  }

  #fault(why: string): void {
    this.#stats.malformed += 1;
    if (this.#stats.faults.length < MAX_FAULT_SAMPLES && !this.#stats.faults.includes(why))
      this.#stats.faults.push(why);
  }
}
