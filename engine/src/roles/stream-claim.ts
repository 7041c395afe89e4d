/**
 * What a media connection holds on the call its stream token stands for (EngineRole.claim), and the refusal of a
 * token that is not good. Its own module so the media endpoint and the engine role depend on it, not on each other.
 */
import type { CallSummary } from '../session/call-session.ts';
import type { MediaTransport } from '../transports/media-transport.ts';
import type { StreamTokenRefusal } from './stream-tokens.ts';

/**
 * A media connection's claim on its call. `ok`: the token was good and is now spent; the connection runs the call
 * on its transport once the stream is ready, or abandons it (the stream failed before it could carry the call).
 */
export type StreamClaim =
  | {
      ok: true;
      callId: string;
      /** Runs the call on `transport` until it ends. At most once. */
      run(transport: MediaTransport): Promise<CallSummary>;
      /** Gives the call up: its worker streams close and it ends as `reason`, outcome failed. Ignored after `run`. */
      abandon(reason: string): void;
    }
  | { ok: false; reason: StreamTokenRefusal };

/** The refusal of a media connection whose stream token is not good (`reason` says why). */
export class StreamTokenError extends Error {
  override name = 'StreamTokenError';
  readonly code = 'bad_stream_token';
  readonly retryable = false;
  readonly reason: StreamTokenRefusal;

  constructor(reason: StreamTokenRefusal) {
    super(`stream token refused: ${reason}`);
    this.reason = reason;
  }
}
