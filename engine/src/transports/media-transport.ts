/**
 * How audio reaches a call and leaves it, whatever carries it (carrier websocket, WebRTC, SIP via the gateway, or
 * memory in tests). A transport converts at its edge: the session only ever sees 20 ms frames of 16 kHz PCM16.
 */

export type TransportEvent =
  /** One 20 ms frame of the caller's audio, 16 kHz PCM16. */
  | { type: 'audio'; samples: Int16Array }
  | { type: 'dtmf'; digit: string }
  /**
   * The far end played everything before this mark: its echo (Twilio `mark`, Plivo `playedStream`). A far end
   * that buffers agent audio echoes late, by as much as it buffered; marks it dropped on `clear()` are not reported.
   */
  | { type: 'mark'; name: string }
  /** The carrier's answering-machine detection spoke. */
  | { type: 'answered_by'; who: 'human' | 'machine' }
  /**
   * The far end hung up or the stream closed. `dropped`: the connection was lost (no goodbye from the far end: a
   * reset socket, a missed heartbeat), not ended; the call then ends as `media_dropped`.
   */
  | { type: 'hangup'; reason: string; dropped?: boolean };

export interface MediaTransport {
  /** What the far end sends, in order; ends after `hangup`. */
  readonly events: AsyncIterable<TransportEvent>;
  /** One 20 ms frame of agent audio, 16 kHz PCM16; called by the pacing clock. */
  send(samples: Int16Array): void;
  /** Asks the far end to report `name` once the audio sent before it has played. */
  mark(name: string): void;
  /** Drops agent audio the far end has buffered but not played (barge-in). */
  clear(): void;
  /** Ends the call from our side. Idempotent. */
  hangup(reason: string): void;
  /** Plays DTMF digits (0-9, *, #, A-D) to the far end; absent when the transport cannot. */
  sendDigits?(digits: string): void;
  /** Hands the call to another number or SIP address (carriers that support it); absent when not possible. */
  transfer?(to: string): Promise<void>;
  /** Whether the far end echoes agent audio back (no echo cancellation): barge-in then needs more caution. */
  readonly echoes: boolean;
}
