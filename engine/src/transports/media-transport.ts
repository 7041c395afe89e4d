/**
 * How audio reaches a call and leaves it, whatever carries it (carrier websocket, WebRTC, SIP via the gateway, or
 * memory in tests). A transport converts at its edge: the session only ever sees 20 ms frames of 16 kHz PCM16.
 */

export type TransportEvent =
  /** One 20 ms frame of the caller's audio, 16 kHz PCM16. */
  | { type: 'audio'; samples: Int16Array }
  | { type: 'dtmf'; digit: string }
  /** The far end played (or discarded on clear) everything before this mark. */
  | { type: 'mark'; name: string }
  /** The carrier's answering-machine detection spoke. */
  | { type: 'answered_by'; who: 'human' | 'machine' }
  /** The far end hung up or the stream closed. */
  | { type: 'hangup'; reason: string };

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
  /** Hands the call to another number or SIP address (carriers that support it); absent when not possible. */
  transfer?(to: string): Promise<void>;
  /** Whether the far end echoes agent audio back (no echo cancellation): barge-in then needs more caution. */
  readonly echoes: boolean;
}
