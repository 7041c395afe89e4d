/**
 * The control plane's one registry of error codes (DESIGN.md §7.4). Every refusal the API gives is an ApiError
 * with one of these codes; the HTTP status comes from the registry, never from message text.
 */
export const ERROR_CODES = {
  validation_failed: { status: 400, retryable: false },
  invalid_state: { status: 400, retryable: false },
  unauthorized: { status: 401, retryable: false },
  payment_required: { status: 402, retryable: false },
  insufficient_scope: { status: 403, retryable: false },
  foreign_organisation: { status: 403, retryable: false },
  role_required: { status: 403, retryable: false },
  feature_disabled: { status: 403, retryable: false },
  forbidden: { status: 403, retryable: false },
  not_found: { status: 404, retryable: false },
  conflict: { status: 409, retryable: false },
  limit_reached: { status: 409, retryable: false },
  unprocessable: { status: 422, retryable: false },
  rate_limited: { status: 429, retryable: true },
  internal: { status: 500, retryable: true },
  upstream_failed: { status: 502, retryable: true },
  unavailable: { status: 503, retryable: true },
  upstream_timeout: { status: 504, retryable: true },
} as const satisfies Record<string, { status: number; retryable: boolean }>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** One failing input field: `field` is a dotted path such as `body.email` or `query.limit`. */
export interface FieldProblem {
  field: string;
  message: string;
}

export class ApiError extends Error {
  override name = 'ApiError';
  readonly code: ErrorCode;
  readonly status: number;
  readonly retryable: boolean;
  readonly fields: FieldProblem[] | undefined;

  constructor(code: ErrorCode, message: string, options: { cause?: unknown; fields?: FieldProblem[] } = {}) {
    super(message, { cause: options.cause });
    this.code = code;
    this.status = ERROR_CODES[code].status;
    this.retryable = ERROR_CODES[code].retryable;
    this.fields = options.fields;
  }
}

/** A 400 naming the failing fields; the message lists them so a person reading only `message` can act. */
export function validationError(fields: FieldProblem[]): ApiError {
  const listed = fields.map((f) => `${f.field} ${f.message}`).join('; ');
  return new ApiError('validation_failed', `Validation failed: ${listed}`, { fields });
}

export function badField(field: string, message: string): ApiError {
  return validationError([{ field, message }]);
}

export const notFound = (what: string): ApiError => new ApiError('not_found', `${what} not found`);
