/**
 * The validator of an upload route: its body schema describes the multipart form for the OpenAPI document, but the
 * form is read and checked by the route itself (multipart-form.ts), which alone can name the file over a limit.
 * Every other part (params, query) is validated as everywhere else.
 */
import type { FastifySchemaCompiler } from 'fastify';
import { validatorCompiler } from './validation.ts';

export const bodylessValidator: FastifySchemaCompiler<object> = (route) =>
  route.httpPart === 'body' ? () => true : validatorCompiler(route);
