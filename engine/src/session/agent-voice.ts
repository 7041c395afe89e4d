/**
 * The agent's voice on one call: its paced outbound audio, the player that speaks fixed lines, and one SpeechHandle
 * per utterance (speech-handle.ts), of which the newest is the one the caller may interrupt. The session decides
 * what is said and when; this knows what is playing, what the caller heard of it, pauses it while caller speech
 * over it may be a barge-in, and stops it on one.
 */
import type { ChatMessage } from '../providers/llm-provider.ts';
import type { MediaTransport } from '../transports/media-transport.ts';
import type { SayOptions, TtsClient } from '../workers/client/tts-client.ts';
import { heardMessages, type AgentTurnResult } from './agent-turn.ts';
import { PacedAgentAudio } from './paced-agent-audio.ts';
import { playedText } from './played-text.ts';
import { SpeechHandle, type HeardSpeech } from './speech-handle.ts';
import { SpeechPlayer } from './speech-player.ts';

export interface AgentVoiceEvents {
  /** A frame tagged `tag` went out to the transport. */
  frameSent(tag: string, samples: Int16Array): void;
  /** Everything queued has gone out. */
  drained(): void;
  /** An agent line was queued whole and not interrupted meanwhile: the model hears it from now on. */
  said(text: string): void;
  /** An utterance settled: how the caller heard it, for its transcript line. */
  heard(heard: HeardSpeech): void;
}

/** What the caller heard of the utterance they interrupted. */
export interface Interruption {
  turn: number;
  heard: string;
  /** What the conversation keeps of it: a reply's rounds trimmed to the heard words, or the heard words. */
  messages: ChatMessage[];
}

/** The utterance the caller may interrupt now, with a reply's rounds and clauses when it is a reply. */
interface CurrentUtterance {
  speech: SpeechHandle;
  result?: AgentTurnResult;
}

export class AgentVoice {
  readonly outbound: PacedAgentAudio;
  readonly #player: SpeechPlayer;
  readonly #events: AgentVoiceEvents;
  readonly #now: () => number;
  /** Utterances not yet settled: each says its transcript line once the caller has heard it. */
  readonly #unsettled = new Set<SpeechHandle>();
  #current: CurrentUtterance | undefined;

  /**
   * @param callSignal aborts when the call ends: every synthesis stops
   * @param now milliseconds since the call started
   */
  constructor(
    transport: MediaTransport,
    tts: TtsClient,
    voice: SayOptions,
    callSignal: AbortSignal,
    now: () => number,
    events: AgentVoiceEvents,
  ) {
    this.#events = events;
    this.#now = now;
    this.outbound = new PacedAgentAudio(transport, {
      frameSent: (tag, samples) => {
        this.#player.frameSent(tag);
        events.frameSent(tag, samples);
      },
      frameUnsent: (tag) => this.#player.frameUnsent(tag),
      markReached: (name) => this.#player.markReached(name),
      drained: () => {
        this.#player.drained();
        events.drained();
      },
    });
    this.#player = new SpeechPlayer(this.outbound, tts, voice, callSignal);
  }

  /** The turn of the utterance the caller may interrupt now, if any. */
  get currentTurn(): number | undefined {
    return this.#current?.speech.turn;
  }

  /** The agent holds the floor: a line is being produced, or its audio is still queued. */
  get speaking(): boolean {
    return this.outbound.queuedFrames > 0 || this.#current?.speech.producing === true;
  }

  /** What the agent is saying now, to tell its echo from the caller. */
  get text(): string {
    return this.#current?.speech.text ?? '';
  }

  /** The greeting: audio made while the phone rang when there is some, else synthesised now; resolves once queued. */
  async greet(text: string, pieces: readonly Int16Array[] | undefined): Promise<void> {
    const speech = this.#interruptible(0, text);
    await (pieces?.length
      ? this.#player.play(text, pieces, 'greeting', speech)
      : this.#player.say(text, 'greeting', speech));
    this.#queued(speech, text);
  }

  /** Says a fixed line the caller may interrupt; resolves once it is queued. */
  async speakLine(text: string, tag: string, turn: number): Promise<void> {
    const speech = this.#interruptible(turn, text);
    await this.#player.say(text, tag, speech);
    this.#queued(speech, text);
  }

  /** Asks a silent caller whether they are there: interruptible, and not part of the conversation the model sees. */
  nudge(text: string, tag: string, turn: number): void {
    const speech = this.#interruptible(turn, text);
    void this.#player.say(text, tag, speech).then(() => speech.allQueued());
  }

  /** Starts a reply of generated clauses (filled into `result` as it runs), the one the caller may interrupt now. */
  beginReply(turn: number, result: AgentTurnResult): SpeechHandle {
    const speech = this.#utterance(turn, undefined, result.clauses);
    this.#current = { speech, result };
    return speech;
  }

  /** Says a last line (voicemail, closing) that nothing interrupts, and waits until it has played. */
  async sayLastLine(text: string, tag: string, turn: number, timeoutMs: number): Promise<void> {
    const speech = this.#utterance(turn, text);
    await this.#player.say(text, tag, speech).catch(() => {});
    speech.allQueued();
    this.#events.said(text);
    await this.#player.whenDrained(timeoutMs);
  }

  /**
   * Caller speech over the agent that may be a barge-in: holds its audio now (the far end drops what it buffered)
   * and keeps the rest of the utterance. False when nothing the caller may interrupt is playing.
   */
  pause(): boolean {
    const current = this.#current;
    if (!this.speaking || !current || current.speech.cancelled) return false;
    this.outbound.pause();
    return true;
  }

  /** It was not a barge-in: the agent goes on from where it paused. */
  resume(): void {
    this.outbound.resume();
  }

  get paused(): boolean {
    return this.outbound.paused;
  }

  /** The caller took the floor: stops the agent now; says what of it was heard (undefined: nothing was playing). */
  interrupt(): Interruption | undefined {
    const current = this.#current;
    if (!current || current.speech.cancelled) {
      // Nothing to stop; what a pause held (a line nobody may interrupt) plays on.
      this.outbound.resume();
      return undefined;
    }
    const { speech, result } = current;
    const played = (tag: string) => this.#player.playedFrames(tag);
    const heard = playedText(speech.clauses, played);
    speech.cutShort(played, heard);
    this.clear();
    const messages: ChatMessage[] = result
      ? heardMessages(result, played)
      : heard
        ? [{ role: 'assistant', content: heard }]
        : [];
    return { turn: speech.turn, heard, messages };
  }

  /** Stops producing the utterance in progress (its queued audio plays on unless cleared). */
  cancelCurrent(): void {
    this.#current?.speech.cancel();
  }

  /** Drops the agent audio not yet played; every utterance in it ends with what the caller heard. */
  clear(): void {
    this.outbound.clear();
    this.#cutShortAll();
  }

  /** The far end echoed a line's mark: it played all of it. */
  markPlayed(name: string): void {
    this.#player.markPlayed(name);
  }

  /** Resolves when nothing is left to play, or after `timeoutMs`. */
  whenDrained(timeoutMs: number): Promise<void> {
    return this.#player.whenDrained(timeoutMs);
  }

  /** The call is over: nothing more goes out, and what was playing ends with what the caller heard. */
  close(): void {
    this.outbound.close();
    this.#cutShortAll();
  }

  #interruptible(turn: number, text: string): SpeechHandle {
    const speech = this.#utterance(turn, text);
    this.#current = { speech };
    return speech;
  }

  #queued(speech: SpeechHandle, text: string): void {
    speech.allQueued();
    if (!speech.cancelled) this.#events.said(text);
  }

  #utterance(turn: number, text?: string, clauses?: SpeechHandle['clauses']): SpeechHandle {
    const speech = new SpeechHandle({
      turn,
      text,
      clauses,
      now: this.#now,
      settled: (settled, heard) => {
        this.#unsettled.delete(settled);
        this.#events.heard(heard);
      },
    });
    this.#unsettled.add(speech);
    return speech;
  }

  #cutShortAll(): void {
    const played = (tag: string) => this.#player.playedFrames(tag);
    for (const speech of [...this.#unsettled]) speech.cutShort(played);
  }
}
