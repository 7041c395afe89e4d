/**
 * JSON control messages cross process boundaries, so every receiver checks them against their schema before use:
 * a message from an older or newer peer, or a corrupted one, becomes a ProtocolError, never an undefined field.
 */
import type { Static, TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';

export class ProtocolError extends Error {
  override name = 'ProtocolError';
  readonly code = 'bad_message';
}

export interface MessageCodec<T extends TSchema> {
  encode(message: Static<T>): string;
  /** Parses and checks; throws ProtocolError naming the first problem. */
  decode(payload: Uint8Array | string): Static<T>;
}

const decoder = new TextDecoder();

export function messageCodec<T extends TSchema>(schema: T, what: string): MessageCodec<T> {
  const check = TypeCompiler.Compile(schema);
  return {
    encode: (message) => JSON.stringify(message),
    decode(payload) {
      let value: unknown;
      try {
        value = JSON.parse(typeof payload === 'string' ? payload : decoder.decode(payload));
      } catch (error) {
        throw new ProtocolError(`${what}: not JSON`, { cause: error });
      }
      if (!check.Check(value)) {
        const first = check.Errors(value).First();
        throw new ProtocolError(`${what}: ${first ? `${first.path || '/'} ${first.message}` : 'invalid'}`);
      }
      return value as Static<T>;
    },
  };
}
