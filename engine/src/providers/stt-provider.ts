/**
 * Speech to text. A provider opens one stream per call (per worker stream); audio goes in as engine frames
 * (PCM16 mono 16 kHz) and transcripts come out. Providers that only transcribe whole utterances (OpenAI-style
 * HTTP, pocketsphinx) buffer until `endOfUtterance()` and emit a final then.
 */

export interface SttOptions {
  /** BCP-47, e.g. `en-US`. */
  language: string;
  /** The agent's sttMode (GLOBAL, INDIA, HUMANOID, GENERIC); providers map it to a model, or ignore it. */
  mode?: string;
  /** Words the recogniser should favour (names, products). */
  keywords?: readonly string[];
}

export type SttEvent =
  | { type: 'partial'; text: string }
  /** A settled transcript of speech that started and ended at these offsets from the stream start, in ms. */
  | { type: 'final'; text: string; startMs: number; endMs: number; confidence?: number };

export interface SttStream extends AsyncIterable<SttEvent> {
  /** One engine frame (or any whole number of samples) of PCM16 mono at 16 kHz. Never blocks. */
  push(samples: Int16Array): void;
  /** The caller stopped speaking (VAD): batch recognisers transcribe what they hold now. */
  endOfUtterance(): void;
  /** No more audio; the iterator ends after the last transcript. */
  end(): void;
}

export interface SttProvider {
  /** Identifier as configured: pocketsphinx, deepgram, openai. */
  readonly name: string;
  /** Opens a stream; aborting `signal` closes it and ends its iterator. Failures surface as a rejected iteration. */
  open(options: SttOptions, signal: AbortSignal): SttStream;
}
