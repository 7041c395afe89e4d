/**
 * The agent of a call with no language model configured (and no flow): it greets as usual, then at the caller's
 * first words says plainly that it cannot answer, and hangs up. The call ended as designed, so it ends
 * `no_language_model` with outcome completed — a finished call that says why, not a platform failure.
 */
import type { Responder, ResponderCall } from './responder.ts';

/** What an agent with no language model says after the caller's first words. */
export const NO_LLM_MESSAGE = 'I am sorry, no language model is configured for me yet, so I cannot answer. Goodbye.';

export class NoModelResponder implements Responder {
  readonly #call: ResponderCall;
  /** The message has been said: later turns (while it plays) get no second one. */
  #messageSaid = false;

  constructor(call: ResponderCall) {
    this.#call = call;
  }

  start(): Promise<void> {
    return Promise.resolve();
  }

  async respond(turn: number): Promise<void> {
    if (this.#messageSaid) return;
    this.#messageSaid = true;
    await this.#call.speakLine(NO_LLM_MESSAGE, `t${turn}`, turn);
    await this.#call.endAfterPlayback('no_language_model');
  }

  pressed(): boolean {
    return false;
  }

  close(): void {}
}
