/** The providers a worker can serve, by name, and which one a stream gets when it names none. */
import { isErrorCode, type ErrorCode } from '../protocol/error-codes.ts';

export class UnknownProviderError extends Error {
  override name = 'UnknownProviderError';
  readonly code: ErrorCode = 'unknown_provider';
}

export interface ProviderRegistry<P extends { readonly name: string }> {
  readonly names: readonly string[];
  /** The named provider, or the default; throws UnknownProviderError for a name this worker does not have. */
  pick(name: string | undefined): P;
}

export function providerRegistry<P extends { readonly name: string }>(
  providers: readonly P[],
  defaultName?: string,
): ProviderRegistry<P> {
  if (providers.length === 0) throw new Error('a worker needs at least one provider');
  const byName = new Map(providers.map((p) => [p.name, p]));
  const fallback = byName.get(defaultName ?? providers[0]!.name);
  if (!fallback)
    throw new UnknownProviderError(`default provider "${defaultName}" is not among ${[...byName.keys()].join(', ')}`);
  return {
    names: [...byName.keys()],
    pick(name) {
      if (name === undefined) return fallback;
      const provider = byName.get(name);
      if (!provider)
        throw new UnknownProviderError(
          `provider "${name}" is not served here; available: ${[...byName.keys()].join(', ')}`,
        );
      return provider;
    },
  };
}

/**
 * The `code` and `retryable` of an error for the wire, without classifying by message text. A code outside the
 * engine's registry (a library's own, such as ECONNRESET) goes out as provider_failed, its text in the message.
 */
export function wireError(error: unknown): { code: ErrorCode; message: string; retryable: boolean } {
  const e = error as { code?: unknown; retryable?: unknown; message?: unknown };
  return {
    code: typeof e.code === 'string' && isErrorCode(e.code) ? e.code : 'provider_failed',
    message: typeof e.message === 'string' ? e.message : String(error),
    retryable: typeof e.retryable === 'boolean' ? e.retryable : true,
  };
}
