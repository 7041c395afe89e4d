/**
 * The caller's audio on its way in, past the transport (which decoded and resampled it to the engine's 16 kHz
 * frames): each frame goes to the voice activity detector, the turn detector and the recogniser feed, in that order,
 * and the pipeline says what the frame meant — speech or not, a turn event, and what the caller's voice over the
 * agent decided: pause it, stop it without words, or let it go on (floor-claim.ts).
 */
import { FRAME_MS } from '../audio/format.ts';
import type { SttClient } from '../workers/client/stt-client.ts';
import type { FrameClassifier } from './energy-vad.ts';
import { FloorClaim, type FloorDecision } from './floor-claim.ts';
import { RecogniserFeed } from './recogniser-feed.ts';
import { DEFAULT_TURN_SETTINGS, TurnDetector, type TurnEvent, type TurnSettings } from './turn-detector.ts';

/** What one caller frame meant. */
export interface InboundFrame {
  speech: boolean;
  /** What the caller's voice over the agent decided with this frame (never on a line that echoes the agent). */
  floor: FloorDecision | undefined;
  turn: TurnEvent | undefined;
}

export class InboundPipeline {
  readonly #vad: FrameClassifier;
  readonly #turns: TurnDetector;
  readonly #recogniser: RecogniserFeed;
  /** The line echoes the agent back: voice alone never pauses or stops it (it may be the agent's own). */
  readonly #echoes: boolean;
  readonly #floor: FloorClaim;
  #voicedOverAgentMs = 0;
  /** performance.now() of the last voiced frame; 0 before any. */
  lastVoicedAt = 0;

  constructor(stt: SttClient, vad: FrameClassifier, turn: Partial<TurnSettings>, echoes: boolean) {
    this.#vad = vad;
    this.#turns = new TurnDetector(turn);
    this.#recogniser = new RecogniserFeed(stt);
    this.#echoes = echoes;
    this.#floor = new FloorClaim(turn.endpointingMs ?? DEFAULT_TURN_SETTINGS.endpointingMs);
  }

  /** The caller is mid-utterance (the turn detector has not seen its end). */
  get callerSpeaking(): boolean {
    return this.#turns.speaking;
  }

  /** One 20 ms caller frame; `agentSpeaking`: the agent holds the floor as it arrives. */
  frame(samples: Int16Array, agentSpeaking: boolean): InboundFrame {
    const { speech } = this.#vad.classify(samples);
    this.#recogniser.frame(samples, speech);
    if (speech) this.lastVoicedAt = performance.now();
    if (speech && agentSpeaking) this.#voicedOverAgentMs += FRAME_MS;
    const floor = this.#echoes ? undefined : this.#floor.frame(speech, agentSpeaking);
    const turn = this.#turns.frame(speech);
    // A pause or a turn's end: a batch recogniser transcribes what it has now.
    if (turn && turn.type !== 'speech_started') this.#recogniser.pause();
    return { speech, floor, turn };
  }

  /** Voiced ms the caller has spoken over the agent since the floor was last settled (the barge-in metric's measure). */
  get voicedOverAgentMs(): number {
    return this.#voicedOverAgentMs;
  }

  /** The recogniser settled words over the agent that do not interrupt it: a paused agent may go on. */
  settledWithoutInterrupting(): FloorDecision | undefined {
    return this.#floor.settledWithoutInterrupting();
  }

  /** The agent was stopped, or went on: voice over it counts afresh. */
  floorSettled(): void {
    this.#floor.reset();
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
