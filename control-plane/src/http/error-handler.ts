/**
 * One place that turns failures into the error shape of spec document 3: `{ success: false, message }` plus a
 * machine-readable `code`, and `errors` (one entry per field) for validation failures. 5xx answers never carry
 * internals: the details go to the log under the request id.
 */
import type { FastifyError, FastifyInstance } from 'fastify';
import { isDatabaseUnreachable } from '../db/errors.ts';
import { ApiError, validationError, type FieldProblem } from '../errors.ts';
import { fieldProblems } from './validation.ts';

export interface ErrorBody {
  success: false;
  message: string;
  code: string;
  errors?: FieldProblem[];
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | ApiError, request, reply) => {
    const apiError = toApiError(error);
    if (apiError.status >= 500) {
      request.log.error({ err: error }, 'request failed');
    } else if (apiError.status !== 404) {
      request.log.info({ code: apiError.code, status: apiError.status }, apiError.message);
    }
    const body: ErrorBody = { success: false, message: apiError.message, code: apiError.code };
    if (apiError.fields) body.errors = apiError.fields;
    if (apiError.code === 'database_unavailable')
      void reply.header('retry-after', String(DATABASE_RETRY_AFTER_SECONDS));
    void reply.code(apiError.status).send(body);
  });

  app.setNotFoundHandler((request, reply) => {
    const body: ErrorBody = {
      success: false,
      message: `Route ${request.method} ${request.url.split('?')[0]} not found`,
      code: 'not_found',
    };
    void reply.code(404).send(body);
  });
}

/** What a 503 for an unreachable database tells the client to wait: about one reconnect attempt of the pool. */
const DATABASE_RETRY_AFTER_SECONDS = 2;

function toApiError(error: FastifyError | ApiError): ApiError {
  // A query that could not reach the database is an outage to wait out (503), not the route's own failure (500).
  if (isDatabaseUnreachable(error)) {
    return new ApiError('database_unavailable', 'The database cannot be reached right now: try again shortly', {
      cause: error,
    });
  }
  if (error instanceof ApiError) return error;
  if (error.validation) {
    const problems = fieldProblems(error.validation as never);
    return validationError(
      problems.length ? problems : [{ field: error.validationContext ?? 'body', message: 'is invalid' }],
    );
  }
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return validationError([{ field: 'body', message: 'must be valid JSON' }]);
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('validation_failed', 'Request body is too large', { cause: error });
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return validationError([{ field: 'content-type', message: `is not supported: send application/json` }]);
    case 'FST_ERR_RATE_LIMIT_EXCEEDED':
      return new ApiError('rate_limited', error.message, { cause: error });
  }
  const status = error.statusCode ?? 500;
  if (status === 429) return new ApiError('rate_limited', error.message, { cause: error });
  if (status >= 400 && status < 500) return new ApiError('validation_failed', error.message, { cause: error });
  return new ApiError('internal', 'Internal server error', { cause: error });
}
