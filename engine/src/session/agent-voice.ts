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
  /**
   * A fixed line the model should know of (greeting, spoken line, closing) joins the conversation: when it is all
   * queued, in its place among the turns, or — cut short before that — as much as was heard. Returns how to amend
   * it when a line already in the conversation is then cut short (its last second is queued before it plays):
   * to the words heard, or out of the conversation when none were.
   */
  said(text: string): (heard: string) => void;
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
  /** Fixed lines in the conversation that have not settled yet: how to amend each if it is cut short. */
  readonly #amends = new Map<SpeechHandle, (heard: string) => void>();
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
    const speech = this.#interruptible(0, text, true);
    await (pieces?.length
      ? this.#player.play(text, pieces, 'greeting', speech)
      : this.#player.say(text, 'greeting', speech));
    this.#queued(speech, text);
  }

  /** Says a fixed line the caller may interrupt; resolves once it is queued. */
  async speakLine(text: string, tag: string, turn: number): Promise<void> {
    const speech = this.#interruptible(turn, text, true);
    await this.#player.say(text, tag, speech);
    this.#queued(speech, text);
  }

  /** Asks a silent caller whether they are there: interruptible, and not part of the conversation the model sees. */
  nudge(text: string, tag: string, turn: number): void {
    const speech = this.#interruptible(turn, text, false);
    void this.#player.say(text, tag, speech).then(
      () => speech.allQueued(),
      // No voice to ask with (the TTS stream failed): it ends with what played of it, if anything.
      () => speech.cutShort((played) => this.#player.playedFrames(played)),
    );
  }

  /** Starts a reply of generated clauses (filled into `result` as it runs), the one the caller may interrupt now. */
  beginReply(turn: number, result: AgentTurnResult): SpeechHandle {
    const speech = this.#utterance(turn, { clauses: result.clauses, remembered: false });
    this.#current = { speech, result };
    return speech;
  }

  /** Says a last line (voicemail, closing) that nothing interrupts, and waits until it has played. */
  async sayLastLine(text: string, tag: string, turn: number, timeoutMs: number): Promise<void> {
    const speech = this.#utterance(turn, { text, remembered: true });
    try {
      await this.#player.say(text, tag, speech);
      this.#queued(speech, text);
    } catch {
      // No voice to say it with (the TTS stream failed): its line holds what played of it, if anything.
      speech.cutShort((played) => this.#player.playedFrames(played));
    }
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
    // A reply's rounds are trimmed to what was heard; a fixed line joined the conversation as it settled just now.
    const messages: ChatMessage[] = result ? heardMessages(result, played) : [];
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

  /** @param remembered whether the model hears it (a nudge is not part of the conversation) */
  #interruptible(turn: number, text: string, remembered: boolean): SpeechHandle {
    const speech = this.#utterance(turn, { text, remembered });
    this.#current = { speech };
    return speech;
  }

  /** A fixed line is all queued: it joins the conversation now, unless it was cut short already (see #utterance). */
  #queued(speech: SpeechHandle, text: string): void {
    if (!speech.cancelled && !speech.heard) this.#amends.set(speech, this.#events.said(text));
    speech.allQueued();
  }

  /**
   * A fixed line the model hears (`remembered`) is in the conversation once, as the caller heard it: a line cut short
   * before it was all queued joins as heard when it settles; one cut short after — in its last second, which is
   * queued before it plays — is amended to the words heard, never added a second time. A reply's rounds reach the
   * conversation through its responder and `interrupt()`.
   */
  #utterance(
    turn: number,
    line: { text?: string; clauses?: SpeechHandle['clauses']; remembered: boolean },
  ): SpeechHandle {
    const speech = new SpeechHandle({
      turn,
      text: line.text,
      clauses: line.clauses,
      now: this.#now,
      settled: (settled, heard) => {
        this.#unsettled.delete(settled);
        const amend = this.#amends.get(settled);
        this.#amends.delete(settled);
        if (amend) {
          if (heard.text !== settled.text) amend(heard.text);
        } else if (line.remembered && heard.text) this.#events.said(heard.text);
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
