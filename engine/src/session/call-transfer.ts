/**
 * Handing a call over to another number through its carrier. While the carrier works on it, the media stream may
 * close — the carrier leaving it, not the caller hanging up — so the stream's end waits on the outcome: a done
 * transfer ends the call `transferred`; a refused one keeps the agent on the line, unless the stream closed
 * meanwhile, in which case the call ends as the stream did.
 */
import type { MediaTransport } from '../transports/media-transport.ts';

export interface TransferOutcomes {
  /** The call ends, `reason` and `outcome` as given, without a closing line; resolves once it has. */
  end(reason: string, outcome: string): Promise<unknown>;
}

export class CallTransfer {
  readonly #transport: MediaTransport;
  readonly #outcomes: TransferOutcomes;
  /** A transfer is with the carrier. */
  #transferring = false;
  /** How the stream ended while a transfer was with the carrier, if it did. */
  #closedDuringTransfer: string | undefined;

  constructor(transport: MediaTransport, outcomes: TransferOutcomes) {
    this.#transport = transport;
    this.#outcomes = outcomes;
  }

  /** The transport can transfer calls at all. */
  get possible(): boolean {
    return this.#transport.transfer !== undefined;
  }

  /** Asks the carrier to transfer the call to `to`; false when it refused (the agent stays on the line). */
  async transfer(to: string): Promise<boolean> {
    if (!this.#transport.transfer) return false;
    this.#transferring = true;
    try {
      await this.#transport.transfer(to);
    } catch {
      this.#transferring = false;
      if (this.#closedDuringTransfer) void this.#outcomes.end(this.#closedDuringTransfer, 'completed');
      return false;
    }
    await this.#outcomes.end('transferred', 'transferred');
    return true;
  }

  /** The stream is gone (`reason`): the call ends so — unless a transfer is with the carrier, which decides. */
  streamEnded(reason: string): void {
    if (this.#transferring) this.#closedDuringTransfer ??= reason;
    else void this.#outcomes.end(reason, 'completed');
  }
}
