/**
 * The control plane's one registry of error codes (docs/architecture.md §7.4). Every refusal the API gives is an ApiError
 * with one of these codes; the HTTP status comes from the registry, never from message text.
 */
export const ERROR_CODES = {
  validation_failed: { status: 400, retryable: false },
  invalid_state: { status: 400, retryable: false },
  /** Telephony: carrier credentials were neither sent nor stored (a new account needs all of them). */
  credentials_required: { status: 400, retryable: false },
  /** Telephony: the carrier refused the credentials or the request; its own message is passed through. */
  carrier_rejected: { status: 400, retryable: false },
  /** Telephony: carrier-c connect named a subdomain other than the carrier's two regional API hosts. */
  subdomain_not_allowed: { status: 400, retryable: false },
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
  /** Telephony: another connect, sync or disconnect of the same carrier account is still running. */
  change_in_progress: { status: 409, retryable: true },
  /** Telephony: a carrier change outlived its lease and was abandoned; nothing was changed. */
  change_timed_out: { status: 409, retryable: true },
  /** Telephony: agents still answer on or dial out from numbers of the carrier account being replaced. */
  numbers_in_use: { status: 409, retryable: false },
  /** Telephony: the India numbering partner has not approved the organisation's KYC (checked live); nothing bought. */
  kyc_not_approved: { status: 409, retryable: false },
  /** Money: the route is for the other billing model (a pay-as-you-go top-up on plan billing, or the reverse). */
  billing_model_mismatch: { status: 409, retryable: false },
  /** Analytics: the same call's detailed analysis is being made by another request; ask again in a moment. */
  analysis_in_progress: { status: 409, retryable: true },
  /** Uploads: a file over its size limit, or more files than allowed; the message names the file. */
  payload_too_large: { status: 413, retryable: false },
  unprocessable: { status: 422, retryable: false },
  rate_limited: { status: 429, retryable: true },
  internal: { status: 500, retryable: true },
  /** The language model failed a rewrite (AI enhancement): its message is passed through, as the spec says. */
  ai_model_failed: { status: 500, retryable: true },
  upstream_failed: { status: 502, retryable: true },
  /** Analytics: the detailed analysis of a call failed; a failed analysis is final (spec document 2, Analytics). */
  analysis_failed: { status: 502, retryable: false },
  unavailable: { status: 503, retryable: true },
  /** The database cannot be reached now (down, restarting, network): nothing was done; try again shortly. */
  database_unavailable: { status: 503, retryable: true },
  /** Telephony: the advisory lock serialising changes to one carrier account could not be taken; nothing changed. */
  lock_unavailable: { status: 503, retryable: true },
  /** Telephony: the India numbering partner could not confirm the KYC status before a purchase; nothing bought. */
  kyc_unconfirmed: { status: 503, retryable: true },
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
