/**
 * Per-turn latency (docs/architecture.md §3 step 6): how long endpointing, the recogniser, the model and the voice each took,
 * and the one number callers feel — from the end of their speech to the agent's first audio.
 */
import type { LatencyReport, TurnLatency } from '../protocol/index.ts';
import type { TurnTimings } from './agent-turn.ts';

const round = (ms: number) => Math.round(ms * 10) / 10;

interface OpenTurn {
  turn: number;
  speechEndedAt: number;
  turnEndedAt: number;
  finalAt?: number;
  timings?: TurnTimings;
  firstFrameAt?: number;
}

export class LatencyTracker {
  readonly #turns: TurnLatency[] = [];
  readonly #onTurn: (turn: TurnLatency) => void;
  #open: OpenTurn | undefined;
  #greetingMs: number | undefined;
  #answeredAt: number | undefined;

  /** @param onTurn told each turn as it is written into the report (the process's metrics, docs/architecture.md §19) */
  constructor(onTurn: (turn: TurnLatency) => void = () => {}) {
    this.#onTurn = onTurn;
  }

  answered(at: number): void {
    this.#answeredAt = at;
  }

  /** The first frame of the greeting went out. */
  greetingPlayed(at: number): void {
    if (this.#greetingMs === undefined && this.#answeredAt !== undefined)
      this.#greetingMs = round(at - this.#answeredAt);
  }

  /** A user turn ended at `turnEndedAt`; the caller's last voiced audio was processed at `speechEndedAt`. */
  turnEnded(turn: number, speechEndedAt: number, turnEndedAt: number, finalAt: number | undefined): void {
    this.#close();
    this.#open = { turn, speechEndedAt, turnEndedAt, finalAt };
  }

  replyTimings(turn: number, timings: TurnTimings): void {
    if (this.#open?.turn === turn) this.#open.timings = timings;
  }

  /** The first frame of the reply to `turn` went out. */
  firstFrame(turn: number, at: number): void {
    if (this.#open?.turn === turn) this.#open.firstFrameAt ??= at;
  }

  report(): LatencyReport {
    this.#close();
    return { ...(this.#greetingMs !== undefined && { greetingMs: this.#greetingMs }), turns: [...this.#turns] };
  }

  #close(): void {
    const open = this.#open;
    if (!open) return;
    this.#open = undefined;
    const t = open.timings ?? {};
    const entry: TurnLatency = { turn: open.turn, endpointingMs: round(open.turnEndedAt - open.speechEndedAt) };
    if (open.finalAt !== undefined) entry.sttFinalMs = round(open.finalAt - open.speechEndedAt);
    if (t.llmSentAt !== undefined && t.firstTokenAt !== undefined)
      entry.llmFirstTokenMs = round(t.firstTokenAt - t.llmSentAt);
    if (t.firstClauseAt !== undefined && t.firstAudioAt !== undefined)
      entry.ttsFirstByteMs = round(t.firstAudioAt - t.firstClauseAt);
    if (open.firstFrameAt !== undefined) entry.endToEndMs = round(open.firstFrameAt - open.speechEndedAt);
    this.#turns.push(entry);
    this.#onTurn(entry);
  }
}
