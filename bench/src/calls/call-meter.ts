/**
 * What one simulated caller measures, from the carrier's side of the line: it is told when the caller's speech
 * started and ended (its frames were sent) and when each message of agent audio and each clear arrived, all in
 * the caller process's performance.now() ms, and it keeps only the figures of the measured window.
 *
 * - Talk spurts: agent audio is one spurt while messages keep coming; a clear, or a silence of more than
 *   SPURT_BREAK_MS, ends it. The first message of a spurt starts an agent line (the greeting, or a reply).
 * - Audible gaps: within a spurt, each whole frame (at least half a frame of audio; the few samples a clause's
 *   resampler tail sends before its mark are not a frame) that arrives more than FRAME_MS after the message before
 *   it is late by that much: a gap of `interarrival − FRAME_MS`, else 0. One sample per frame.
 * - Turn latency: from the end of the caller's utterance to the first message of the next spurt starting after it
 *   (before the caller's next utterance ends). A reply that never comes is an unanswered utterance.
 * - Greeting latency: from the stream's start to the first agent audio.
 * - Barge-in: caller speech that starts while an agent line is live (its last audio at most SPURT_BREAK_MS
 *   earlier, no clear since), and during which a clear arrives: from the caller's first frame to the last audio
 *   of that line received, and from the clear to that last audio. The engine sends the clear in the same step as it
 *   empties its queue, so at the carrier the clear's arrival is the interruption decision; audio arriving within
 *   LEAK_WINDOW_MS after it was still on its way and counts against the stop.
 */

/** Audio of the agent's lines is 20 ms frames, sent one per tick. */
export const FRAME_MS = 20;
/** A silence longer than this between two agent messages is the end of a line, not a gap in it. */
export const SPURT_BREAK_MS = 500;
/** An utterance that ended less than this before the window closed is not counted: its reply may come after it. */
export const ANSWER_GRACE_MS = 2_000;

/** The agent is quiet once no audio of it has come for this long, ms. */
export const QUIET_MS = 100;
/** Audio arriving this soon after a clear was already on its way: it belongs to the interrupted line. */
export const LEAK_WINDOW_MS = 100;

/** One barge-in, ms. */
export interface BargeIn {
  /** Caller speech start → the last agent audio received. */
  stopMs: number;
  /** Caller speech start → the clear. */
  decisionMs: number;
  /** The clear → the last agent audio received (0 when nothing came after the clear). */
  afterClearMs: number;
  /** Agent messages received after the clear. */
  messagesAfterClear: number;
}

/** A call's figures over the window. */
export interface CallWindow {
  /** Stream start → first agent audio, ms; measured whenever it happens (the greeting precedes every window). */
  greetingMs: number | undefined;
  /** End of caller speech → first agent audio of the reply, ms, per answered utterance. */
  turnMs: number[];
  /** Utterances that ended in the window (less its last ANSWER_GRACE_MS), and how many of those got a reply. */
  utterances: number;
  answered: number;
  /** Lateness of each whole agent frame within a spurt, ms (0 for one on time). */
  gapsMs: number[];
  bargeIns: BargeIn[];
  /** Caller speech that began while the agent's line was live, which then ended with no clear (by itself). */
  overlapsWithoutClear: number;
  /** Agent audio received in the window: messages, and ms of audio. */
  agentMessages: number;
  agentAudioMs: number;
}

interface PendingBarge {
  startedAt: number;
  inWindow: boolean;
  /** The agent's line that was live at the caller's first word is still being followed. */
  tracking: boolean;
  lastAudioAt: number | undefined;
  clearAt: number | undefined;
  afterClear: number;
}

interface Utterance {
  endedAt: number;
  replyMs: number | undefined;
}

export class CallMeter {
  readonly #sampleRate: number;
  #openedAt: number | undefined;
  #closedAt: number | undefined;
  #streamStartedAt: number | undefined;
  #greetingMs: number | undefined;
  #lastAudioAt: number | undefined;
  #clearedSinceAudio = false;
  /** The last utterance, until its reply starts. */
  #awaiting: Utterance | undefined;
  #barge: PendingBarge | undefined;
  /** Utterances that ended in the window. */
  readonly #utterances: Utterance[] = [];
  readonly #gapsMs: number[] = [];
  readonly #bargeIns: BargeIn[] = [];
  #overlapsWithoutClear = 0;
  #agentMessages = 0;
  #agentAudioMs = 0;

  /** @param sampleRate the stream's rate, Hz (frame sizes are judged in samples) */
  constructor(sampleRate: number) {
    this.#sampleRate = sampleRate;
  }

  #inWindow(at: number): boolean {
    return (
      this.#openedAt !== undefined && at >= this.#openedAt && (this.#closedAt === undefined || at <= this.#closedAt)
    );
  }

  streamStarted(at: number): void {
    this.#streamStartedAt = at;
  }

  openWindow(at: number): void {
    this.#openedAt = at;
  }

  closeWindow(at: number): void {
    if (this.#openedAt !== undefined) this.#closedAt = at;
  }

  /** The caller's first frame of an utterance was sent. */
  utteranceStarted(at: number): void {
    const live =
      this.#lastAudioAt !== undefined && !this.#clearedSinceAudio && at - this.#lastAudioAt <= SPURT_BREAK_MS;
    this.#barge = {
      startedAt: at,
      inWindow: this.#inWindow(at),
      tracking: live,
      lastAudioAt: live ? this.#lastAudioAt : undefined,
      clearAt: undefined,
      afterClear: 0,
    };
  }

  /** The caller's last frame of an utterance was sent. */
  utteranceEnded(at: number): void {
    this.#settleBarge();
    const utterance: Utterance = { endedAt: at, replyMs: undefined };
    this.#awaiting = utterance;
    if (this.#inWindow(at)) this.#utterances.push(utterance);
  }

  /** A message of agent audio arrived, `samples` long. */
  agentAudio(at: number, samples: number): void {
    const previous = this.#lastAudioAt;
    const cleared = this.#clearedSinceAudio;
    const newSpurt = previous === undefined || cleared || at - previous > SPURT_BREAK_MS;
    this.#lastAudioAt = at;
    this.#clearedSinceAudio = false;
    if (this.#inWindow(at)) {
      this.#agentMessages += 1;
      this.#agentAudioMs += (samples * 1000) / this.#sampleRate;
    }
    const barge = this.#barge;
    if (barge?.tracking) {
      const leak = barge.clearAt !== undefined && at - barge.clearAt <= LEAK_WINDOW_MS;
      if (leak) barge.afterClear += 1;
      if (leak || (barge.clearAt === undefined && !newSpurt)) barge.lastAudioAt = at;
      else barge.tracking = false;
    }
    if (newSpurt) {
      this.#lineStarted(at);
      return;
    }
    const wholeFrame = samples * 2 >= (this.#sampleRate * FRAME_MS) / 1000;
    if (wholeFrame && this.#inWindow(at)) this.#gapsMs.push(Math.max(0, at - previous - FRAME_MS));
  }

  /**
   * The caller is in the middle of an utterance and the agent has been quiet for QUIET_MS: no reply can start
   * before the utterance ends, so a hang-up now leaves no agent audio on its way.
   */
  lineQuiet(now: number): boolean {
    return this.#barge !== undefined && (this.#lastAudioAt === undefined || now - this.#lastAudioAt >= QUIET_MS);
  }

  /** The engine told the carrier to drop what it buffered. */
  clearArrived(at: number): void {
    this.#clearedSinceAudio = true;
    if (this.#barge?.tracking && this.#barge.clearAt === undefined) this.#barge.clearAt = at;
  }

  #lineStarted(at: number): void {
    if (this.#greetingMs === undefined && this.#streamStartedAt !== undefined)
      this.#greetingMs = at - this.#streamStartedAt;
    const awaiting = this.#awaiting;
    this.#awaiting = undefined;
    if (awaiting) awaiting.replyMs = at - awaiting.endedAt;
  }

  #settleBarge(): void {
    const barge = this.#barge;
    this.#barge = undefined;
    if (!barge?.inWindow || barge.lastAudioAt === undefined) return;
    if (barge.clearAt === undefined) {
      this.#overlapsWithoutClear += 1;
      return;
    }
    this.#bargeIns.push({
      stopMs: Math.max(0, barge.lastAudioAt - barge.startedAt),
      decisionMs: barge.clearAt - barge.startedAt,
      afterClearMs: Math.max(0, barge.lastAudioAt - barge.clearAt),
      messagesAfterClear: barge.afterClear,
    });
  }

  /** The window's figures; utterances that ended in its last ANSWER_GRACE_MS are left out. */
  result(): CallWindow {
    const until = (this.#closedAt ?? Number.POSITIVE_INFINITY) - ANSWER_GRACE_MS;
    const counted = this.#utterances.filter((u) => u.endedAt <= until);
    const answered = counted.filter((u) => u.replyMs !== undefined);
    return {
      greetingMs: this.#greetingMs,
      turnMs: answered.map((u) => u.replyMs!),
      utterances: counted.length,
      answered: answered.length,
      gapsMs: this.#gapsMs,
      bargeIns: this.#bargeIns,
      overlapsWithoutClear: this.#overlapsWithoutClear,
      agentMessages: this.#agentMessages,
      agentAudioMs: this.#agentAudioMs,
    };
  }
}
