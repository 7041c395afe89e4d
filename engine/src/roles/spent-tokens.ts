/**
 * Stream tokens already claimed, each remembered until it expires, so a second use is refused as `reused` (not
 * `unknown`) — and forgotten after, so the set stays bounded.
 */

/** Claimed stream tokens remembered at most; past it the oldest is forgotten early. */
const MAX_SPENT_TOKENS = 10_000;

export class SpentTokens {
  /** Claimed tokens and their expiry, ms since the epoch, oldest first. */
  readonly #expiries = new Map<string, number>();

  has(token: string): boolean {
    return this.#expiries.has(token);
  }

  /** Remembers a claimed token until `expiresAt` (ms since the epoch). */
  spend(token: string, expiresAt: number): void {
    const now = Date.now();
    for (const [spent, expiry] of this.#expiries) {
      if (expiry > now && this.#expiries.size < MAX_SPENT_TOKENS) break;
      this.#expiries.delete(spent);
    }
    this.#expiries.set(token, expiresAt);
  }
}
