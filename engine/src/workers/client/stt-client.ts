/**
 * A call's STT stream, session side. Audio frames go out as they come; transcripts come back as events. The audio
 * of the utterance in progress is kept, so that when the worker dies mid-utterance the new worker hears it from
 * its start and the caller's sentence is not cut.
 */
import type { Bus } from '../../bus/index.ts';
import { ENGINE_SAMPLE_RATE } from '../../audio/format.ts';
import { codecs, encodeAudioFrame } from '../../protocol/index.ts';
import type { SttEvent, SttOptions } from '../../providers/stt-provider.ts';
import { Channel } from '../../streams/channel.ts';
import { WorkerStream, WorkerStreamError } from './worker-stream.ts';

/** Longest utterance kept for replay, in frames (30 s): longer speech is not one sentence anyway. */
const REPLAY_MAX_FRAMES = 1_500;
/** Transcript events held unread; a stuck reader loses the oldest partials rather than stalling the call. */
const EVENT_BUFFER = 256;

export class SttClient {
  readonly #stream: WorkerStream;
  readonly events = new Channel<SttEvent>(EVENT_BUFFER, 'drop-oldest');
  readonly #utterance: Int16Array[] = [];
  /**
   * Utterances that ended while a failover was reopening the stream: their audio and their end could not be sent,
   * so both wait here for the new worker (clearing them, as a normal end does, would lose the caller's sentence).
   */
  readonly #endedDuringFailover: Int16Array[][] = [];
  #sequence = 0;

  private constructor(bus: Bus, callId: string, options: SttOptions & { provider?: string }) {
    this.#stream = new WorkerStream(
      bus,
      'stt',
      {
        callId,
        options: {
          provider: options.provider,
          language: options.language,
          mode: options.mode,
          keywords: options.keywords ? [...options.keywords] : undefined,
        },
      },
      {
        message: (payload) => this.#receive(payload),
        reopened: () => {
          for (const utterance of this.#endedDuringFailover.splice(0)) {
            for (const frame of utterance) this.#send(frame);
            this.#sendEndOfUtterance();
          }
          for (const frame of this.#utterance) this.#send(frame);
        },
        failed: (error) => this.events.fail(error),
      },
    );
  }

  static async open(bus: Bus, callId: string, options: SttOptions & { provider?: string }): Promise<SttClient> {
    const client = new SttClient(bus, callId, options);
    await client.#stream.open();
    return client;
  }

  get failovers(): number {
    return this.#stream.failovers;
  }

  /** One engine frame (16 kHz PCM16). */
  push(samples: Int16Array): void {
    if (this.#utterance.length >= REPLAY_MAX_FRAMES) this.#utterance.shift();
    this.#utterance.push(samples);
    this.#send(samples);
  }

  endOfUtterance(): void {
    const utterance = this.#utterance.splice(0);
    if (this.#stream.accepting) this.#sendEndOfUtterance();
    else this.#endedDuringFailover.push(utterance);
  }

  close(): void {
    this.#stream.close(codecs.sttControl.encode({ type: 'end' }));
    this.events.end();
  }

  #sendEndOfUtterance(): void {
    this.#stream.send(codecs.sttControl.encode({ type: 'end_of_utterance' }));
  }

  #send(samples: Int16Array): void {
    this.#stream.send(
      encodeAudioFrame({ sampleRate: ENGINE_SAMPLE_RATE, requestNumber: 0, sequence: this.#sequence++, samples }),
    );
  }

  #receive(payload: Uint8Array): void {
    const message = codecs.sttOut.decode(payload);
    switch (message.type) {
      case 'partial':
      case 'final':
        this.events.push(message);
        break;
      case 'error':
        this.events.fail(WorkerStreamError.fromWire(message));
        break;
      case 'ended':
        this.events.end();
        break;
    }
  }
}
