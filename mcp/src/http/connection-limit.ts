/**
 * The MCP endpoint's own rate limit, per connection (spec document 3: "per connection, separate from the REST
 * limit"). MCP over stateless HTTP has no connection object, so a connection is its bearer token: counted by a
 * SHA-256 fingerprint (the token itself is never kept), in fixed one-minute windows like the REST limits.
 */
import { createHash } from 'node:crypto';

export const WINDOW_MS = 60_000;

export interface LimitVerdict {
  allowed: boolean;
  /** Seconds until the window opens again (for Retry-After). */
  retryAfterSeconds: number;
}

export class ConnectionLimit {
  readonly #counts = new Map<string, number>();
  #windowStartedAt: number;

  constructor(
    readonly perMinute: number,
    readonly now: () => number = Date.now,
  ) {
    this.#windowStartedAt = now();
  }

  static fingerprint(token: string): string {
    return createHash('sha256').update(token).digest('base64url');
  }

  take(token: string): LimitVerdict {
    const now = this.now();
    if (now - this.#windowStartedAt >= WINDOW_MS) {
      // A new window forgets every counter at once: the map never holds more than one minute's connections.
      this.#counts.clear();
      this.#windowStartedAt = now - ((now - this.#windowStartedAt) % WINDOW_MS);
    }
    const key = ConnectionLimit.fingerprint(token);
    const count = (this.#counts.get(key) ?? 0) + 1;
    this.#counts.set(key, count);
    return {
      allowed: count <= this.perMinute,
      retryAfterSeconds: Math.max(1, Math.ceil((this.#windowStartedAt + WINDOW_MS - now) / 1000)),
    };
  }
}
