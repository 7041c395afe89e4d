/**
 * Answers for failures Fastify or Node's HTTP parser meet before a route runs: a malformed percent-encoding in the
 * path (FST_ERR_BAD_URL), a path value over the router's length limit (FST_ERR_MAX_PARAM_LENGTH), and requests the
 * parser cannot read at all (headers or URL too large, malformed request line). Left to the framework they answer
 * 414, 431 or a bare 400 in its own shape and without a request id; here they answer like every route:
 * `{ success: false, message, code }` with `x-request-id` (docs/architecture.md §7.4).
 */
import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, badField } from '../errors.ts';
import type { ErrorBody } from './error-handler.ts';

/** The router's limit on one path value; Fastify's default, named here so the refusal can say it. */
export const MAX_PATH_VALUE_LENGTH = 100;

export function answerFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const apiError = frameworkApiError(error);
  request.log.info({ code: apiError.code, cause: error.code }, apiError.message);
  void reply.code(apiError.status).header('x-request-id', request.id).send(envelope(apiError));
}

function frameworkApiError(error: FastifyError): ApiError {
  switch (error.code) {
    case 'FST_ERR_BAD_URL':
      return badField('path', 'is not a valid URL: malformed percent-encoding');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return badField('path', `has a value longer than ${MAX_PATH_VALUE_LENGTH} characters`);
    default:
      return new ApiError('validation_failed', 'The request could not be routed', { cause: error });
  }
}

/**
 * Node's `clientError`: the request never became a Fastify request, so there is no reply object; the answer is
 * written on the socket, in the envelope, before the connection closes. A reset or a socket already gone needs none.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
  const apiError = new ApiError(
    'validation_failed',
    tooLarge ? 'The request URL or headers are too large' : 'The request could not be read as HTTP',
  );
  const body = JSON.stringify(envelope(apiError));
  if (!socket.writable) {
    socket.destroy(error);
    return;
  }
  socket.end(
    [
      `HTTP/1.1 ${apiError.status} Bad Request`,
      'Content-Type: application/json; charset=utf-8',
      `Content-Length: ${Buffer.byteLength(body)}`,
      `x-request-id: ${randomUUID()}`,
      'Connection: close',
      '',
      body,
    ].join('\r\n'),
  );
}

function envelope(error: ApiError): ErrorBody {
  const body: ErrorBody = { success: false, message: error.message, code: error.code };
  if (error.fields) body.errors = error.fields;
  return body;
}
