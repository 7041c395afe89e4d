/**
 * A browser call in LiveKit mode as a MediaTransport (docs/architecture.md §16): the engine joins the call's LiveKit
 * room as the agent participant (@livekit/rtc-node, the LiveKit client SDK for Node, over its native FFI library),
 * publishes one audio track and listens to the visitor's.
 *
 * - `join` connects and publishes; `visitorPresent` resolves once a remote participant is in the room, and only then
 *   does the session start (its greeting is for someone).
 * - Audio both ways at the session's 16 kHz: the SDK's AudioStream resamples the visitor's Opus to 16 kHz mono
 *   (10 ms frames, re-cut to 20 ms here) and the AudioSource takes our 20 ms frames; Opus and SRTP are LiveKit's.
 * - Marks are reported when sent (the source's queue is small and the visitor's jitter buffer plays it at once);
 *   a clear empties the source's queue.
 * - The visitor leaving (or the room closing) ends the call as the caller's hang-up; a lost connection is a drop.
 *
 * No LiveKit server runs where this was written: connecting and its refusal are tested, the media path is not
 * (README says so).
 */
import type { AudioSource, Room } from '@livekit/rtc-node';
import { Framer } from '../../audio/framer.ts';
import { ENGINE_FRAME_SAMPLES, ENGINE_SAMPLE_RATE } from '../../audio/format.ts';
import { Channel } from '../../streams/channel.ts';
import type { MediaTransport, TransportEvent } from '../media-transport.ts';

/** Caller events held for the session, at most: 5 s of 20 ms frames, as for carrier streams. */
const INBOUND_EVENT_CAPACITY = 250;
/** The agent track's name in the room. */
const AGENT_TRACK_NAME = 'agent-voice';
/** Agent audio the SDK's source holds before playout, ms: a few frames, so a clear has little to drop. */
const SOURCE_QUEUE_MS = 100;

export class LiveKitTransport implements MediaTransport {
  readonly echoes = false;
  /** Resolves when a visitor is in the room; rejects when the room closes first. */
  readonly visitorPresent: Promise<void>;
  readonly #room: Room;
  readonly #source: AudioSource;
  readonly #createFrame: (samples: Int16Array) => import('@livekit/rtc-node').AudioFrame;
  readonly #events = new Channel<TransportEvent>(INBOUND_EVENT_CAPACITY, 'drop-oldest', {
    evictable: (e) => e.type === 'audio',
  });
  #ended = false;
  #resolvePresent!: () => void;
  #rejectPresent!: (error: Error) => void;

  private constructor(rtc: typeof import('@livekit/rtc-node'), room: Room, source: AudioSource) {
    this.#room = room;
    this.#source = source;
    this.#createFrame = (samples) => new rtc.AudioFrame(samples, ENGINE_SAMPLE_RATE, 1, samples.length);
    this.visitorPresent = new Promise<void>((resolve, reject) => {
      this.#resolvePresent = resolve;
      this.#rejectPresent = reject;
    });
    this.visitorPresent.catch(() => {});
    room.on(rtc.RoomEvent.ParticipantConnected, () => this.#resolvePresent());
    room.on(rtc.RoomEvent.TrackSubscribed, (track) => {
      if (track.kind !== rtc.TrackKind.KIND_AUDIO) return;
      void this.#listen(new rtc.AudioStream(track, ENGINE_SAMPLE_RATE, 1));
    });
    room.on(rtc.RoomEvent.ParticipantDisconnected, () => {
      if (room.remoteParticipants.size > 0) return;
      this.#finish({ type: 'hangup', reason: 'caller hung up' });
    });
    room.on(rtc.RoomEvent.Disconnected, () =>
      this.#finish({ type: 'hangup', reason: 'media connection lost (room closed)', dropped: true }),
    );
  }

  /** Joins `room` at `url` with the agent's access token and publishes the agent's track. Rejects when refused. */
  static async join(url: string, token: string): Promise<LiveKitTransport> {
    const rtc = await import('@livekit/rtc-node');
    const room = new rtc.Room();
    const source = new rtc.AudioSource(ENGINE_SAMPLE_RATE, 1, SOURCE_QUEUE_MS);
    const transport = new LiveKitTransport(rtc, room, source);
    try {
      await room.connect(url, token, { autoSubscribe: true, dynacast: false });
      const track = rtc.LocalAudioTrack.createAudioTrack(AGENT_TRACK_NAME, source);
      await room.localParticipant!.publishTrack(
        track,
        new rtc.TrackPublishOptions({ source: rtc.TrackSource.SOURCE_MICROPHONE }),
      );
    } catch (error) {
      transport.hangup('join failed');
      throw error;
    }
    if (room.remoteParticipants.size > 0) transport.#resolvePresent();
    return transport;
  }

  get events(): AsyncIterable<TransportEvent> {
    return this.#events;
  }

  send(samples: Int16Array): void {
    if (this.#ended) return;
    void this.#source.captureFrame(this.#createFrame(samples)).catch(() => {});
  }

  mark(name: string): void {
    if (!this.#ended) this.#events.push({ type: 'mark', name });
  }

  clear(): void {
    if (!this.#ended) this.#source.clearQueue();
  }

  hangup(_reason: string): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#rejectPresent(new Error('the call ended before a visitor joined'));
    this.#events.end();
    void this.#room.disconnect().catch(() => {});
    void this.#source.close().catch(() => {});
  }

  async #listen(stream: AsyncIterable<{ data: Int16Array }>): Promise<void> {
    const framer = new Framer(ENGINE_FRAME_SAMPLES);
    for await (const frame of stream) {
      if (this.#ended) return;
      for (const samples of framer.push(frame.data)) this.#events.push({ type: 'audio', samples });
    }
  }

  #finish(event: TransportEvent): void {
    if (this.#ended) return;
    this.#events.push(event);
    this.hangup(event.type === 'hangup' ? event.reason : 'ended');
  }
}
