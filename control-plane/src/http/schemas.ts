/** Schema pieces shared by every route: ids, timestamps, the envelope and the error body. */
import { Type, type TSchema } from '@sinclair/typebox';
import { ID_PATTERN } from '../db/ids.ts';

export const Id = (description?: string) =>
  Type.String({ pattern: ID_PATTERN, description: description ?? '24-character hexadecimal id' });

/**
 * A string from a fixed list. Written as `enum` (not a union of literals) so a bad value is reported once, as
 * "must be one of: …", and the OpenAPI document shows the list.
 */
export const StringEnum = <T extends string>(
  values: readonly T[],
  options: { description?: string; default?: T } = {},
) => Type.Unsafe<T>({ type: 'string', enum: [...values], ...options });

export const Timestamp = Type.String({ format: 'date-time' });
// Nullable values are written as a type list, not a union: response serialisation then needs no schema
// validation to choose a branch, which on large records costs more than the rest of the request.
export const NullableTimestamp = Type.Unsafe<string | null>({ type: ['string', 'null'], format: 'date-time' });
export const NullableString = Type.Unsafe<string | null>({ type: ['string', 'null'] });

export const ErrorBody = Type.Object(
  {
    success: Type.Literal(false),
    message: Type.String(),
    code: Type.String({ description: 'Machine-readable error code, e.g. validation_failed, insufficient_scope' }),
    errors: Type.Optional(Type.Array(Type.Object({ field: Type.String(), message: Type.String() }))),
  },
  { $id: 'ErrorBody', description: 'Every error answer' },
);

/** `{ success: true, data, message? }` around a data schema. */
export const Envelope = <T extends TSchema>(data: T) =>
  Type.Object({ success: Type.Literal(true), data, message: Type.Optional(Type.String()) });

const errorRef = Type.Ref('ErrorBody');

/**
 * Error responses every authenticated route with inputs can give, for the OpenAPI document. 429 is added where a
 * route has a rate limit (plugins/external/openapi-operations.ts), since most routes have none.
 */
export const authErrors = {
  400: errorRef,
  401: errorRef,
  403: errorRef,
} as const;

export const errors = (...codes: (404 | 409 | 422 | 402 | 502 | 503)[]) =>
  Object.fromEntries(codes.map((code) => [code, errorRef])) as Record<number, typeof errorRef>;
