/**
 * The caller's audio on its way in, past the transport (which decoded and resampled it to the engine's 16 kHz
 * frames): each frame goes to the voice activity detector, the turn detector and the recogniser feed, in that order,
 * and the pipeline says what the frame meant — speech or not, a turn event, and whether the caller has now talked
 * over the agent long enough to take the floor without words (barge-in.ts).
 */
import { FRAME_MS } from '../audio/format.ts';
import type { SttClient } from '../workers/client/stt-client.ts';
import { BARGE_IN_WITHOUT_WORDS_MS } from './barge-in.ts';
import type { FrameClassifier } from './energy-vad.ts';
import { RecogniserFeed } from './recogniser-feed.ts';
import { TurnDetector, type TurnEvent, type TurnSettings } from './turn-detector.ts';

/** What one caller frame meant. */
export interface InboundFrame {
  speech: boolean;
  /** The caller has spoken over the agent long enough to stop it, words or not. */
  takesFloor: boolean;
  turn: TurnEvent | undefined;
}

export class InboundPipeline {
  readonly #vad: FrameClassifier;
  readonly #turns: TurnDetector;
  readonly #recogniser: RecogniserFeed;
  /** The line echoes the agent back: voice alone never takes the floor (it may be the agent's own). */
  readonly #echoes: boolean;
  /** Voiced ms in a row while the agent spoke. */
  #voicedOverAgentMs = 0;
  /** performance.now() of the last voiced frame; 0 before any. */
  lastVoicedAt = 0;

  constructor(stt: SttClient, vad: FrameClassifier, turn: Partial<TurnSettings>, echoes: boolean) {
    this.#vad = vad;
    this.#turns = new TurnDetector(turn);
    this.#recogniser = new RecogniserFeed(stt);
    this.#echoes = echoes;
  }

  /** The caller is mid-utterance (the turn detector has not seen its end). */
  get callerSpeaking(): boolean {
    return this.#turns.speaking;
  }

  /** One 20 ms caller frame; `agentSpeaking`: the agent holds the floor as it arrives. */
  frame(samples: Int16Array, agentSpeaking: boolean): InboundFrame {
    const { speech } = this.#vad.classify(samples);
    this.#recogniser.frame(samples, speech);
    let takesFloor = false;
    if (speech) {
      this.lastVoicedAt = performance.now();
      this.#voicedOverAgentMs = agentSpeaking ? this.#voicedOverAgentMs + FRAME_MS : 0;
      takesFloor = agentSpeaking && !this.#echoes && this.#voicedOverAgentMs >= BARGE_IN_WITHOUT_WORDS_MS;
    }
    const turn = this.#turns.frame(speech);
    // A pause or a turn's end: a batch recogniser transcribes what it has now.
    if (turn && turn.type !== 'speech_started') this.#recogniser.pause();
    return { speech, takesFloor, turn };
  }

  /** Voiced ms the caller has spoken over the agent since it last took the floor (the barge-in metric's measure). */
  get voicedOverAgentMs(): number {
    return this.#voicedOverAgentMs;
  }

  /** The agent was stopped: voice over it counts afresh. */
  floorTaken(): void {
    this.#voicedOverAgentMs = 0;
  }

  /** The recogniser settled words: the turn may end on them. */
  finalTranscript(): TurnEvent | undefined {
    return this.#turns.finalTranscript();
  }

  close(): void {
    this.#vad.close?.();
  }
}
