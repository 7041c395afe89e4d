/**
 * What a call session owns (docs/architecture.md §8, "A session owns its children"): its worker streams, recording,
 * timers, outbound audio, inbound pipeline, responder and transport. Each is adopted once, and closed once, when
 * the session closes: the cascade runs a single time whatever asks for it, every child is told why (its parent
 * closed), and a child that throws is logged without keeping the others open — as mediasoup's routers close their
 * transports.
 */

/** A child's side of the cascade: it lets go of what it holds; `reason` is why its parent closed. */
export type ParentClosed = (reason: string) => void;

export class SessionChildren {
  readonly #children: { name: string; parentClosed: ParentClosed }[] = [];
  readonly #log: (event: string, detail?: object, level?: 'info' | 'warn' | 'error') => void;
  #closedWith: string | undefined;

  constructor(log: (event: string, detail?: object, level?: 'info' | 'warn' | 'error') => void) {
    this.#log = log;
  }

  get closed(): boolean {
    return this.#closedWith !== undefined;
  }

  /** Adopts a child; one adopted after the parent closed is closed at once. */
  adopt(name: string, parentClosed: ParentClosed): void {
    if (this.#closedWith !== undefined) this.#close(name, parentClosed, this.#closedWith);
    else this.#children.push({ name, parentClosed });
  }

  /** Closes every child, in the order they were adopted. Only the first call does anything. */
  closeAll(reason: string): void {
    if (this.#closedWith !== undefined) return;
    this.#closedWith = reason;
    for (const { name, parentClosed } of this.#children.splice(0)) this.#close(name, parentClosed, reason);
  }

  #close(name: string, parentClosed: ParentClosed, reason: string): void {
    try {
      parentClosed(reason);
    } catch (error) {
      this.#log('child failed to close', { child: name, error: String(error) }, 'error');
    }
  }
}
