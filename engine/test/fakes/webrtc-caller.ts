/**
 * A browser caller without a browser (tests and `npm run bench -- webrtc`): a werift peer connection that does what
 * a web page does — opens the signalling socket, offers one Opus audio track, trickles its candidates, streams
 * 48 kHz Opus at a 20 ms cadence and decodes what the agent sends back. Its audio is encoded the way a browser's
 * is: 48 kHz, 20 ms packets.
 */
import { RTCPeerConnection, RTCRtpCodecParameters, MediaStreamTrack, RtpHeader, RtpPacket } from 'werift';
import WebSocket from 'ws';
import { OpusDecoder, OpusEncoder } from '../../src/audio/opus-codec.ts';
import { resample } from '../../src/audio/resampler.ts';

/** Samples in one 20 ms frame at 48 kHz. */
const FRAME_48K = 960;
/** How long connecting may take in a test, ms. */
const CONNECT_TIMEOUT_MS = 10_000;

export interface WebRtcCallerOptions {
  /** Keep every agent frame received in `received` (tests); off for long runs (the bench reads `onAudio`). */
  keepAudio?: boolean;
  /** Called with each agent frame as it arrives (48 kHz) and its arrival time, performance.now() ms. */
  onAudio?: (samples: Int16Array, at: number) => void;
  /** How long the peer connection may take to connect, ms; CONNECT_TIMEOUT_MS by default. */
  connectTimeoutMs?: number;
}

/** When an utterance's first and last frames were sent, performance.now() ms. */
export interface SayHooks {
  started?(at: number): void;
  ended?(at: number): void;
}

export interface WebRtcCaller {
  /** Every 20 ms of agent audio received, decoded at 48 kHz, in arrival order (when `keepAudio`). */
  readonly received: Int16Array[];
  /** Signalling messages the engine sent. */
  readonly signals: { type: string; [key: string]: unknown }[];
  /** Resolves with the close code and reason when the signalling socket closes. */
  readonly closed: Promise<{ code: number; reason: string }>;
  /** Streams 16 kHz audio in real time (20 ms packets), resolving once sent. */
  say(samples16k: Int16Array, hooks?: SayHooks): Promise<void>;
  /** Streams silence in real time for `ms`. */
  pause(ms: number): Promise<void>;
  /** All received agent audio, one array at 48 kHz. */
  heard(): Int16Array;
  /** Hangs up: `hangup` over signalling, then closes the socket. */
  hangup(): Promise<void>;
  close(): Promise<void>;
}

/** Opens the signalling socket only: resolves with the close (for refused tokens). */
export function openSignalling(url: string): Promise<{ code: number; reason: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.on('error', reject);
    ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() }));
  });
}

export async function connectWebRtcCaller(url: string, options: WebRtcCallerOptions = {}): Promise<WebRtcCaller> {
  const keepAudio = options.keepAudio ?? true;
  const ws = new WebSocket(url);
  const signals: WebRtcCaller['signals'] = [];
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  const pc = new RTCPeerConnection({
    codecs: { audio: [new RTCRtpCodecParameters({ mimeType: 'audio/opus', clockRate: 48_000, channels: 2 })] },
  });
  const track = new MediaStreamTrack({ kind: 'audio' });
  const transceiver = pc.addTransceiver(track, { direction: 'sendrecv' });
  const decoder = new OpusDecoder(48_000);
  const encoder = new OpusEncoder(48_000);
  const received: Int16Array[] = [];
  transceiver.onTrack.subscribe((remote) => {
    remote.onReceiveRtp.subscribe((rtp) => {
      const samples = decoder.decode(rtp.payload);
      if (keepAudio) received.push(samples);
      options.onAudio?.(samples, performance.now());
    });
  });
  pc.onIceCandidate.subscribe((candidate) => {
    if (candidate) ws.send(JSON.stringify({ type: 'candidate', candidate: candidate.toJSON() }));
  });
  const answered = new Promise<string>((resolve, reject) => {
    ws.on('message', (data) => {
      const message = JSON.parse(data.toString()) as { type: string; sdp?: string };
      signals.push(message);
      if (message.type === 'answer') resolve(message.sdp!);
    });
    void closed.then(({ code, reason }) => reject(new Error(`signalling closed before the answer: ${code} ${reason}`)));
  });
  answered.catch(() => {});
  await pc.setLocalDescription(await pc.createOffer());
  ws.send(JSON.stringify({ type: 'offer', sdp: pc.localDescription!.sdp }));
  await pc.setRemoteDescription({ type: 'answer', sdp: await answered });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error('the peer connection did not connect')),
      options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS,
    );
    pc.connectionStateChange.subscribe((state) => {
      if (state === 'connected') {
        clearTimeout(timer);
        resolve();
      }
    });
    if (pc.connectionState === 'connected') resolve();
  });

  let sequence = 1;
  let timestamp = 0;
  let next = performance.now();
  /** Sends 48 kHz frames at the real-time cadence, catching up when a timer fires late. */
  const stream = async (samples48k: Int16Array, hooks: SayHooks = {}): Promise<void> => {
    const last = Math.floor(samples48k.length / FRAME_48K) * FRAME_48K - FRAME_48K;
    for (let at = 0; at + FRAME_48K <= samples48k.length; at += FRAME_48K) {
      next = Math.max(next + 20, performance.now() - 20);
      const wait = next - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const payload = Buffer.from(encoder.encode(samples48k.subarray(at, at + FRAME_48K)));
      track.writeRtp(new RtpPacket(new RtpHeader({ sequenceNumber: sequence, timestamp, payloadType: 111 }), payload));
      sequence = (sequence + 1) & 0xffff;
      timestamp = (timestamp + FRAME_48K) >>> 0;
      if (at === 0) hooks.started?.(performance.now());
      if (at === last) hooks.ended?.(performance.now());
    }
  };

  return {
    received,
    signals,
    closed,
    say: (samples16k, hooks) => stream(resample(samples16k, 16_000, 48_000), hooks),
    pause: (ms) => stream(new Int16Array(Math.round(ms / 20) * FRAME_48K)),
    heard() {
      const out = new Int16Array(received.reduce((n, f) => n + f.length, 0));
      let at = 0;
      for (const frame of received) {
        out.set(frame, at);
        at += frame.length;
      }
      return out;
    },
    async hangup() {
      ws.send(JSON.stringify({ type: 'hangup' }));
      ws.close(1000, 'bye');
      await closed;
      await pc.close();
    },
    async close() {
      if (ws.readyState === ws.OPEN) ws.close(1000, 'bye');
      await pc.close();
      encoder.close();
      decoder.close();
    },
  };
}
