/**
 * Caller voice over the agent, frame by frame, until it is known whether the caller is taking the floor
 * (docs/architecture.md §3, barge-in). Confirmed speech over the agent for PAUSE_AFTER_VOICED_MS pauses the agent at
 * once; then the words decide (caller-turns.ts): words that interrupt commit the barge-in, a backchannel or an empty
 * result resumes the agent. Without words, voice that goes on to BARGE_IN_WITHOUT_WORDS_MS commits — longer than any
 * backchannel — and a caller quiet for the resume window (a cough, a door, words that never came) resumes it.
 */
import { FRAME_MS } from '../audio/format.ts';
import { BARGE_IN_WITHOUT_WORDS_MS } from './barge-in.ts';

/**
 * Confirmed voice over the agent that pauses it, ms. With the energy gate alone it is that long after the caller's
 * first word began; Silero's confirmation (one or two 32 ms windows) comes before it counts, so the pause falls
 * about 150–200 ms into the word, sooner than anyone expects an answer to a word and later than a click or a breath.
 */
export const PAUSE_AFTER_VOICED_MS = 120;
/** Unvoiced time that makes the next voiced frame a new onset, ms: longer than the gaps between a word's syllables. */
export const ONSET_GAP_MS = 200;
/**
 * Added to the agent's endpointing silence for the resume window, ms: a recogniser that transcribes at the pause
 * (batch) needs the endpointing silence to be asked and a moment to answer, and its words should decide before the
 * silence does. With the default 600 ms endpointing, a cough pauses the agent for about a second.
 */
export const RESUME_GRACE_MS = 400;

/** What caller voice over the agent decided: hold its audio, stop it for good, or let it go on. */
export type FloorDecision = 'pause' | 'commit' | 'resume';

export class FloorClaim {
  readonly #resumeAfterMs: number;
  #paused = false;
  /** Voiced ms over the agent since the onset. */
  #voicedMs = 0;
  /** Unvoiced ms since the last voiced frame. */
  #quietMs = 0;

  /** @param endpointingMs the agent's endpointing silence (turn-detector.ts), ms */
  constructor(endpointingMs: number) {
    this.#resumeAfterMs = endpointingMs + RESUME_GRACE_MS;
  }

  /** The agent is paused for the caller, waiting for the decision. */
  get paused(): boolean {
    return this.#paused;
  }

  /** One 20 ms caller frame: `speech` as the VAD confirmed it, `agentSpeaking` as it arrives. */
  frame(speech: boolean, agentSpeaking: boolean): FloorDecision | undefined {
    if (!agentSpeaking) {
      // The agent finished while paused (nothing was left to hold): the output must not stay held for the next line.
      const wasPaused = this.#paused;
      this.reset();
      return wasPaused ? 'resume' : undefined;
    }
    if (speech) {
      this.#voicedMs += FRAME_MS;
      this.#quietMs = 0;
    } else {
      this.#quietMs += FRAME_MS;
      if (!this.#paused && this.#quietMs >= ONSET_GAP_MS) this.#voicedMs = 0;
    }
    if (!this.#paused) {
      if (this.#voicedMs < PAUSE_AFTER_VOICED_MS) return undefined;
      this.#paused = true;
      return 'pause';
    }
    if (this.#voicedMs >= BARGE_IN_WITHOUT_WORDS_MS) {
      this.reset();
      return 'commit';
    }
    if (this.#quietMs >= this.#resumeAfterMs) {
      this.reset();
      return 'resume';
    }
    return undefined;
  }

  /**
   * The recogniser settled words that do not interrupt (a backchannel, nothing, the agent's own echo): once the
   * caller has stopped, a paused agent goes on at once.
   */
  settledWithoutInterrupting(): FloorDecision | undefined {
    if (!this.#paused || this.#quietMs === 0) return undefined;
    this.reset();
    return 'resume';
  }

  /** The agent was stopped or went on: voice over it counts afresh. */
  reset(): void {
    this.#paused = false;
    this.#voicedMs = 0;
    this.#quietMs = 0;
  }
}
