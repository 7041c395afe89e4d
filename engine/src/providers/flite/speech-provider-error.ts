/**
 * Error codes of the offline speech providers (flite, espeak, pocketsphinx), which all run a local program. The
 * workers put `code` and `retryable` on the wire as they are (workers/provider-registry.ts `wireError`), so callers
 * branch on the code, never on message text.
 */
export const SPEECH_PROVIDER_ERROR_CODES = {
  /** The program or its model files are not installed where configured: retrying cannot help until an operator acts. */
  provider_unavailable: { retryable: false },
  /** The request cannot be served as asked (unknown voice, unsupported language, text too long, bad speed). */
  invalid_request: { retryable: false },
  /** The program exited with an error or wrote output we cannot read; the same input would fail the same way. */
  provider_failed: { retryable: false },
  /** The program did not finish in time: a busy machine, so a later attempt may succeed. */
  timeout: { retryable: true },
} as const satisfies Record<string, { retryable: boolean }>;

export type SpeechProviderErrorCode = keyof typeof SPEECH_PROVIDER_ERROR_CODES;

export class SpeechProviderError extends Error {
  override name = 'SpeechProviderError';
  readonly code: SpeechProviderErrorCode;
  readonly retryable: boolean;

  constructor(code: SpeechProviderErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.code = code;
    this.retryable = SPEECH_PROVIDER_ERROR_CODES[code].retryable;
  }
}

/** True when `err` is a SpeechProviderError, optionally with the given code. */
export function isSpeechProviderError(err: unknown, code?: SpeechProviderErrorCode): err is SpeechProviderError {
  return err instanceof SpeechProviderError && (code === undefined || err.code === code);
}
