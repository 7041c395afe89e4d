/**
 * Barge-in as a browser caller sees it. A WebRTC far end gets no `clear` (the engine simply stops sending), so the
 * carriers' CallMeter, which follows a barge-in from speech onset to the clear, counts every interruption here as
 * an overlap without one. This meter follows the agent's line itself: caller speech that starts while the line is
 * live (audio within SPURT_BREAK_MS) is a barge-in when the line then stops — no agent audio for SPURT_BREAK_MS —
 * before the utterance ends; its figure is speech onset → the line's last audio. A line that talks on through the
 * whole utterance was not interrupted.
 */
import { SPURT_BREAK_MS } from '../calls/call-meter.ts';

interface Pending {
  startedAt: number;
  /** The interrupted line's last audio so far. */
  lastAudioAt: number;
  /** Still the same line: no break of SPURT_BREAK_MS since the onset. */
  following: boolean;
}

export class BargeMeter {
  /** Speech onset → last agent audio, ms, per barge-in. */
  readonly stopMs: number[] = [];
  /** Overlaps the agent talked on through. */
  notStopped = 0;
  #lastAudioAt: number | undefined;
  #pending: Pending | undefined;
  #counting = false;

  /** Counts only what happens from now (the measured window). */
  open(): void {
    this.#counting = true;
  }

  close(): void {
    this.#counting = false;
  }

  utteranceStarted(at: number): void {
    const live = this.#lastAudioAt !== undefined && at - this.#lastAudioAt <= SPURT_BREAK_MS;
    this.#pending = live ? { startedAt: at, lastAudioAt: this.#lastAudioAt!, following: true } : undefined;
  }

  agentAudio(at: number): void {
    const pending = this.#pending;
    if (pending?.following) {
      if (at - pending.lastAudioAt <= SPURT_BREAK_MS) pending.lastAudioAt = at;
      else pending.following = false;
    }
    this.#lastAudioAt = at;
  }

  utteranceEnded(at: number): void {
    const pending = this.#pending;
    this.#pending = undefined;
    if (!pending || !this.#counting) return;
    const stopped = !pending.following || at - pending.lastAudioAt > SPURT_BREAK_MS;
    if (stopped) this.stopMs.push(Math.max(0, pending.lastAudioAt - pending.startedAt));
    else this.notStopped += 1;
  }
}
