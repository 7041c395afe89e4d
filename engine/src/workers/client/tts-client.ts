/**
 * A call's TTS stream, session side. `say()` returns the clause's audio (16 kHz PCM16 pieces) as it is produced.
 * If the worker dies before any audio came, the clause is asked of the new worker; once audio has flowed the
 * clause fails instead, so the caller never hears half a sentence twice.
 */
import type { Bus } from '../../bus/index.ts';
import { codecs, decodeAudioFrame, isAudioFrame } from '../../protocol/index.ts';
import { Channel } from '../../streams/channel.ts';
import { WorkerStream, WorkerStreamError } from './worker-stream.ts';

/** Audio pieces one clause may hold unread (~100 ms each): 10 minutes, far past any sentence. */
const CLAUSE_BUFFER_PIECES = 6_000;

export interface SayOptions {
  voiceId?: string;
  speed?: number;
  language?: string;
}

interface PendingSay {
  text: string;
  options: SayOptions;
  channel: Channel<Int16Array>;
  started: boolean;
}

export class TtsClient {
  readonly #stream: WorkerStream;
  readonly #pending = new Map<number, PendingSay>();
  #nextRequestId = 1;
  /** Why the stream is over (no worker before the deadline, or closed): a clause asked now fails at once. */
  #lost: WorkerStreamError | undefined;

  private constructor(bus: Bus, callId: string, options: SayOptions & { provider?: string }) {
    this.#stream = new WorkerStream(
      bus,
      'tts',
      { callId, options },
      {
        message: (payload) => this.#receive(payload),
        reopened: () => this.#resend(),
        failed: (error) => this.#failAll(error),
      },
    );
  }

  static async open(bus: Bus, callId: string, options: SayOptions & { provider?: string } = {}): Promise<TtsClient> {
    const client = new TtsClient(bus, callId, options);
    await client.#stream.open();
    return client;
  }

  get failovers(): number {
    return this.#stream.failovers;
  }

  /** False once the stream is over for good (no worker took it back before the deadline, or it was closed). */
  get available(): boolean {
    return this.#lost === undefined;
  }

  /** The clause's audio as it is made; it fails at once when the stream is over (nothing would ever answer). */
  say(text: string, options: SayOptions, signal: AbortSignal): AsyncIterable<Int16Array> {
    const requestId = this.#nextRequestId++;
    const channel = new Channel<Int16Array>(CLAUSE_BUFFER_PIECES, 'fail');
    if (this.#lost) {
      channel.fail(this.#lost);
      return channel;
    }
    this.#pending.set(requestId, { text, options, channel, started: false });
    const cancel = () => {
      this.#stream.send(codecs.ttsIn.encode({ type: 'cancel', requestId }));
      this.#pending.delete(requestId);
      channel.end();
    };
    if (signal.aborted) cancel();
    else {
      signal.addEventListener('abort', cancel, { once: true });
      this.#sendSay(requestId, text, options);
    }
    return channel;
  }

  close(): void {
    this.#stream.close(codecs.ttsIn.encode({ type: 'end' }));
    this.#failAll(new WorkerStreamError('closed', 'TTS stream closed'));
  }

  #sendSay(requestId: number, text: string, options: SayOptions): void {
    this.#stream.send(codecs.ttsIn.encode({ type: 'say', requestId, text, ...options }));
  }

  #receive(payload: Uint8Array): void {
    if (isAudioFrame(payload)) {
      const frame = decodeAudioFrame(payload);
      const pending = this.#pending.get(frame.requestNumber);
      if (!pending) return;
      pending.started = true;
      pending.channel.push(frame.samples);
      return;
    }
    const message = codecs.ttsOut.decode(payload);
    if (message.type === 'ended') return;
    const pending = this.#pending.get(message.requestId);
    if (!pending) return;
    this.#pending.delete(message.requestId);
    if (message.type === 'done') pending.channel.end();
    else pending.channel.fail(WorkerStreamError.fromWire(message));
  }

  #resend(): void {
    for (const [requestId, pending] of this.#pending) {
      if (pending.started) {
        pending.channel.fail(new WorkerStreamError('worker_lost', 'the TTS worker died mid-clause'));
        this.#pending.delete(requestId);
      } else {
        this.#sendSay(requestId, pending.text, pending.options);
      }
    }
  }

  #failAll(error: WorkerStreamError): void {
    this.#lost ??= error;
    for (const pending of this.#pending.values()) pending.channel.fail(error);
    this.#pending.clear();
  }
}
