/**
 * The caller's side of turn-taking: the words the recogniser settles are gathered into the caller's turn, which
 * ends when the turn detector says so (or, for words settled after their turn had ended, at once). Words heard
 * while the agent holds the floor interrupt it when they are an interruption (barge-in.ts), and otherwise let an
 * agent paused for them go on (floor-claim.ts); the first words of an
 * outbound call that sound like an answering machine are a voicemail, not a turn.
 */
import type { CallSpec } from '../protocol/index.ts';
import type { SttClient } from '../workers/client/stt-client.ts';
import { WorkerStreamError } from '../workers/client/worker-stream.ts';
import { interrupts } from './barge-in.ts';
import type { InboundPipeline } from './inbound-pipeline.ts';
import type { TurnEvent } from './turn-detector.ts';
import { soundsLikeVoicemail, VOICEMAIL_LISTEN_MS } from './voicemail-detector.ts';

/** Longest wait for a batch recogniser's words after the caller paused, ms. */
const FINAL_WAIT_MS = 3_000;
/** How long before the VAD's decision a caller's speech began, ms: the detector needs that much voice to decide. */
const SPEECH_ONSET_LEAD_MS = 200;

/** A caller's turn, complete. */
export interface CallerTurn {
  /** 1 for the first turn of the call. */
  turn: number;
  text: string;
  /** When the caller began and finished it, ms since the call started. */
  startMs: number;
  endMs: number;
  /** performance.now() of its last voiced frame (0: none) and of its last settled words, for the latency report. */
  lastVoicedAt: number;
  finalAt: number | undefined;
}

export interface CallerTurnsHost {
  spec: CallSpec;
  stt: SttClient;
  inbound: InboundPipeline;
  /** The line echoes the agent back: only words the agent is not saying interrupt it. */
  echoes: boolean;
  /** Milliseconds since the call started. */
  now(): number;
  /** Whether the agent holds the floor, and what it is saying. */
  agent(): { speaking: boolean; text: string };
  interrupt(): void;
  /** Words over the agent settled that do not interrupt it (a backchannel, its own echo, nothing). */
  overheard(): void;
  voicemail(): void;
  /** The call is ending: no further turn is taken. */
  ending(): boolean;
  turnEnded(turn: CallerTurn): void;
  /** The recogniser's stream failed for good (no worker took it back in time, or the worker reported it failed). */
  recogniserLost(error: WorkerStreamError): void;
  fail(error: unknown): void;
}

export class CallerTurns {
  readonly #host: CallerTurnsHost;
  /** Words settled in the turn so far. */
  #words = '';
  #startedAtMs = 0;
  #finalAt: number | undefined;
  #count = 0;

  constructor(host: CallerTurnsHost) {
    this.#host = host;
  }

  /** Turns taken so far. */
  get count(): number {
    return this.#count;
  }

  /** Reads the recogniser's words until its stream ends. */
  async readTranscripts(): Promise<void> {
    const host = this.#host;
    try {
      for await (const event of host.stt.events) {
        const agent = host.agent();
        const interruption = agent.speaking && interrupts(event.text, agent.text, host.echoes);
        if (event.type === 'partial') {
          if (interruption) host.interrupt();
          continue;
        }
        if (agent.speaking) {
          if (!interruption) {
            host.overheard();
            continue;
          }
          host.interrupt();
        }
        this.#words += `${this.#words ? ' ' : ''}${event.text}`;
        this.#finalAt = performance.now();
        if (
          host.now() < VOICEMAIL_LISTEN_MS &&
          host.spec.direction === 'OUTBOUND' &&
          soundsLikeVoicemail(this.#words)
        ) {
          host.voicemail();
          continue;
        }
        const ended = host.inbound.finalTranscript();
        if (ended) this.#ended(ended);
        // Words settled after their turn had ended (a recogniser that finalised part of a sentence early, then the
        // rest): they are a turn of their own now, or they would wait for the caller's next sentence — and if they
        // just cancelled the reply to the first part, the caller would get no answer at all.
        else if (!host.inbound.callerSpeaking) this.#ended(undefined);
      }
    } catch (error) {
      // Only the STT stream fails with a WorkerStreamError here; anything else is a fault of the call itself.
      if (error instanceof WorkerStreamError) host.recogniserLost(error);
      else host.fail(error);
    }
  }

  /** The inbound pipeline's turn event for a frame. */
  turnEvent(event: TurnEvent): void {
    if (event.type === 'speech_started') this.#startedAtMs = this.#host.now() - SPEECH_ONSET_LEAD_MS;
    else if (event.type === 'turn_ended') this.#ended(event);
  }

  /** A key the responder did not take: a turn of its own, in words the model understands. */
  pressed(digit: string): void {
    this.#words += `${this.#words ? ' ' : ''}[The caller pressed ${digit}]`;
    this.#ended(undefined);
  }

  #ended(event: TurnEvent | undefined): void {
    const text = this.#words.trim();
    if (!text && event?.type === 'turn_ended' && this.#finalAt === undefined) {
      // A batch recogniser may still be working on the words: give it a moment before giving up on the turn.
      setTimeout(() => {
        if (this.#words.trim()) this.#ended(undefined);
      }, FINAL_WAIT_MS).unref();
      return;
    }
    this.#words = '';
    if (!text || this.#host.ending()) return;
    this.#count += 1;
    const finalAt = this.#finalAt;
    this.#finalAt = undefined;
    this.#host.turnEnded({
      turn: this.#count,
      text,
      startMs: this.#startedAtMs,
      endMs: this.#host.now(),
      lastVoicedAt: this.#host.inbound.lastVoicedAt,
      finalAt,
    });
  }
}
