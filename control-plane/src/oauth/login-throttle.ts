/**
 * Slows password guessing: failed logins are counted per e-mail address and per client address over a window, and
 * past the limit further attempts are refused (429) without checking the password. Counts live in each process.
 */

/** The window failed attempts are counted over. */
export const LOGIN_WINDOW_MS = 15 * 60_000;
/** Failures per e-mail address per window: a person mistyping never gets near; a guesser gets 10 tries. */
export const LOGIN_FAILURES_PER_EMAIL = 10;
/** Failures per client address per window: higher, since offices share one address. */
export const LOGIN_FAILURES_PER_ADDRESS = 50;
/** Bound on tracked e-mails and addresses per process; the oldest entry is dropped first. */
const MAX_TRACKED = 50_000;

export class LoginThrottle {
  readonly #failures = new Map<string, { count: number; since: number }>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** Seconds to wait before trying again, or 0 when an attempt is allowed. */
  retryAfterSeconds(email: string, address: string): number {
    const waits = [
      this.#wait(`e:${email.toLowerCase()}`, LOGIN_FAILURES_PER_EMAIL),
      this.#wait(`a:${address}`, LOGIN_FAILURES_PER_ADDRESS),
    ];
    return Math.max(...waits);
  }

  failed(email: string, address: string): void {
    this.#count(`e:${email.toLowerCase()}`);
    this.#count(`a:${address}`);
  }

  succeeded(email: string): void {
    this.#failures.delete(`e:${email.toLowerCase()}`);
  }

  #wait(key: string, limit: number): number {
    const entry = this.#failures.get(key);
    if (!entry) return 0;
    const elapsed = this.#now() - entry.since;
    if (elapsed >= LOGIN_WINDOW_MS) {
      this.#failures.delete(key);
      return 0;
    }
    return entry.count >= limit ? Math.ceil((LOGIN_WINDOW_MS - elapsed) / 1000) : 0;
  }

  #count(key: string): void {
    const now = this.#now();
    const entry = this.#failures.get(key);
    if (entry && now - entry.since < LOGIN_WINDOW_MS) entry.count += 1;
    else {
      this.#failures.delete(key);
      this.#failures.set(key, { count: 1, since: now });
      if (this.#failures.size > MAX_TRACKED) this.#failures.delete(this.#failures.keys().next().value!);
    }
  }
}
