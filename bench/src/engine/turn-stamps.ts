/**
 * What the fake providers and the scripted callers saw of each turn, stamped with performance.now() in the same
 * process as the engine, keyed by the turn's key: the fake STT names every utterance (`s3u2`: stream 3, utterance
 * 2) inside its transcript, and that key travels through the conversation into the LLM request and the first
 * clause sent to TTS, so every stamp lands on the right turn of the right call without touching the engine.
 */

export interface TurnStamps {
  /** The caller pushed its last voiced frame of the utterance. */
  lastVoicedAt?: number;
  /** The fake STT emitted the final transcript. */
  sttFinalAt?: number;
  /** The fake LLM received the turn's request. */
  llmRequestAt?: number;
  /** The fake LLM emitted the token that completes the reply's first clause. */
  llmFirstClauseAt?: number;
  /** The fake TTS received the reply's first clause. */
  ttsRequestAt?: number;
  /** The fake TTS emitted the first audio of that clause. */
  ttsFirstAudioAt?: number;
  /** The caller received the reply's first frame. */
  firstFrameAt?: number;
}

const KEY = /\bs\d+u\d+\b/;

/** The turn key inside `text`, if any. */
export function turnKeyIn(text: string): string | undefined {
  return KEY.exec(text)?.[0];
}

export function turnKey(stream: number, utterance: number): string {
  return `s${stream}u${utterance}`;
}

export class StampBook {
  readonly #byKey = new Map<string, TurnStamps>();

  /** The stamps of `key`, made on first use. */
  of(key: string): TurnStamps {
    let stamps = this.#byKey.get(key);
    if (!stamps) {
      stamps = {};
      this.#byKey.set(key, stamps);
    }
    return stamps;
  }

  get(key: string): TurnStamps | undefined {
    return this.#byKey.get(key);
  }
}
