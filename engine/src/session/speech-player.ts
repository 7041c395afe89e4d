/**
 * Speaks fixed lines (greeting, closing, nudges, voicemail) through the call's TTS stream, and keeps the playback
 * bookkeeping every spoken line shares: frames played per tag, marks reached, and waiting for the queue to empty.
 */
import { Framer } from '../audio/framer.ts';
import type { SayOptions, TtsClient } from '../workers/client/tts-client.ts';
import type { PacedAgentAudio } from './paced-agent-audio.ts';
import type { ClauseAudio } from './played-text.ts';
import type { SpeechHandle } from './speech-handle.ts';

export class SpeechPlayer {
  readonly #outbound: PacedAgentAudio;
  readonly #tts: TtsClient;
  readonly #voice: SayOptions;
  readonly #callSignal: AbortSignal;
  readonly #played = new Map<string, number>();
  readonly #drainWaiters: (() => void)[] = [];
  /** Lines all sent to the transport whose mark the far end has not echoed yet: their end may not have played. */
  readonly #unconfirmed = new Set<string>();

  constructor(outbound: PacedAgentAudio, tts: TtsClient, voice: SayOptions, callSignal: AbortSignal) {
    this.#outbound = outbound;
    this.#tts = tts;
    this.#voice = voice;
    this.#callSignal = callSignal;
  }

  /** Synthesises `text` and queues it under `tag` as `speech`; resolves once all of it is queued (not yet heard). */
  say(text: string, tag: string, speech: SpeechHandle): Promise<void> {
    const stop = AbortSignal.any([speech.signal, this.#callSignal]);
    return this.#queueLine(text, this.#tts.say(text, this.#voice, stop), tag, speech, stop);
  }

  /**
   * Queues audio already synthesised (the greeting, made while the phone rang) under `tag`; resolves once queued.
   * `pieces` are 16 kHz PCM16 chunks of any length.
   */
  play(text: string, pieces: readonly Int16Array[], tag: string, speech: SpeechHandle): Promise<void> {
    return this.#queueLine(text, pieces, tag, speech, AbortSignal.any([speech.signal, this.#callSignal]));
  }

  async #queueLine(
    text: string,
    pieces: AsyncIterable<Int16Array> | Iterable<Int16Array>,
    tag: string,
    speech: SpeechHandle,
    stop: AbortSignal,
  ): Promise<void> {
    const line: ClauseAudio = { tag, text, frames: 0 };
    speech.clauses.push(line);
    const framer = new Framer();
    try {
      for await (const piece of pieces) {
        if (stop.aborted) return;
        for (const frame of framer.push(piece)) await this.#queue(line, frame, speech, stop);
      }
      const tail = framer.flush();
      if (tail && !stop.aborted) await this.#queue(line, tail, speech, stop);
      if (!stop.aborted) this.#outbound.mark(tag);
    } catch (error) {
      if (!stop.aborted) throw error;
    }
  }

  /**
   * Frames of `tag` the caller heard: those sent to the transport, less the last one while the far end has not
   * echoed the line's mark (a carrier that buffers may still hold it), so a line counts whole only once confirmed.
   */
  playedFrames(tag: string): number {
    const sent = this.#played.get(tag) ?? 0;
    return this.#unconfirmed.has(tag) ? Math.max(0, sent - 1) : sent;
  }

  frameSent(tag: string): void {
    this.#played.set(tag, (this.#played.get(tag) ?? 0) + 1);
  }

  /** A frame of `tag` sent went back to be replayed (a pause): it is not played yet. */
  frameUnsent(tag: string): void {
    this.#played.set(tag, Math.max(0, (this.#played.get(tag) ?? 0) - 1));
  }

  /** All of the line went to the transport, its mark behind it. */
  markReached(name: string): void {
    this.#unconfirmed.add(name);
  }

  /** The far end echoed the line's mark: it played all of it. */
  markPlayed(name: string): void {
    this.#unconfirmed.delete(name);
  }

  drained(): void {
    for (const resolve of this.#drainWaiters.splice(0)) resolve();
  }

  /** Resolves when nothing is left to play, or after `timeoutMs`. */
  whenDrained(timeoutMs: number): Promise<void> {
    if (this.#outbound.queuedFrames === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      timer.unref();
      this.#drainWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  async #queue(line: ClauseAudio, frame: Int16Array, speech: SpeechHandle, signal: AbortSignal): Promise<void> {
    await this.#outbound.enqueue(frame, line.tag, speech, signal);
    line.frames += 1;
  }
}
