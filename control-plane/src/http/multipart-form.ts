/**
 * Reading an upload form (multipart/form-data) for the upload routes (knowledge bases, catalogues): text fields and
 * files, each held to its limit with an answer that names what broke it — a file over its size or past the file
 * count is a 413 naming the file, an unknown field a 400 naming it — never a 500. Nothing is stored here: the caller
 * gets the whole form, or an error before anything was written.
 */
import type { FastifyRequest } from 'fastify';
// The request methods this file reads (isMultipart, parts) are declared by the plugin's types.
import type {} from '@fastify/multipart';
import { ApiError, badField } from '../errors.ts';

export interface FormLimits {
  /** Field names of files, e.g. ['files']; a file under any other name is refused. */
  fileFields: readonly string[];
  /** Text fields accepted; any other is refused. */
  textFields: readonly string[];
  maxFiles: number;
  maxFileBytes: number;
  /** Largest text field, bytes. */
  maxTextBytes: number;
}

export interface FormFile {
  field: string;
  fileName: string;
  content: Uint8Array;
}

export interface ReadForm {
  fields: Record<string, string>;
  files: FormFile[];
}

/** The multipart plugin's limits for `limits`: one file more than allowed is let through, so it can be named. */
export function multipartLimits(limits: FormLimits) {
  return {
    fileSize: limits.maxFileBytes,
    files: limits.maxFiles + 1,
    fields: limits.textFields.length * 2,
    fieldSize: limits.maxTextBytes,
    parts: limits.maxFiles + 1 + limits.textFields.length * 2,
  };
}

const megabytes = (bytes: number) => `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`;
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function tooLarge(field: string, message: string): ApiError {
  return new ApiError('payload_too_large', message, { fields: [{ field, message }] });
}

/**
 * Reads the whole form of `request` (registered with @fastify/multipart and `multipartLimits`). A JSON body is
 * taken as the same form without files (text fields only), so scripts and MCP tools can send text alone.
 */
export async function readMultipartForm(request: FastifyRequest, limits: FormLimits): Promise<ReadForm> {
  if (!request.isMultipart()) return jsonForm(request.body, limits);
  const fields: Record<string, string> = {};
  const files: FormFile[] = [];
  try {
    for await (const part of request.parts()) {
      const field = part.fieldname.replace(/\[\]$/, '');
      if (part.type === 'file') {
        const fileName = part.filename || '(unnamed)';
        if (!limits.fileFields.includes(field)) {
          part.file.resume();
          throw badField(field, `is not a file field: send files as ${limits.fileFields.join(' or ')}`);
        }
        if (files.length >= limits.maxFiles) {
          part.file.resume();
          throw tooLarge(
            field,
            `${fileName}: at most ${limits.maxFiles} file${limits.maxFiles === 1 ? '' : 's'} per upload`,
          );
        }
        let content: Buffer;
        try {
          content = await part.toBuffer();
        } catch (error) {
          if ((error as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') {
            throw tooLarge(field, `${fileName}: is larger than ${megabytes(limits.maxFileBytes)}`);
          }
          throw error;
        }
        files.push({ field, fileName, content });
      } else {
        if (!limits.textFields.includes(field)) throw badField(field, 'is not a field of this form');
        if (part.valueTruncated) throw tooLarge(field, `is larger than ${megabytes(limits.maxTextBytes)}`);
        const value = typeof part.value === 'string' ? part.value : String(part.value);
        if (UNSTORABLE.test(value))
          throw badField(field, 'contains characters that cannot be stored (NUL or a lone surrogate)');
        if (field in fields) throw badField(field, 'is sent more than once');
        fields[field] = value;
      }
    }
  } catch (error) {
    if (error instanceof ApiError) throw error;
    const status = (error as { statusCode?: number }).statusCode;
    const message = error instanceof Error ? error.message : String(error);
    if (status === 413) throw tooLarge('body', `the form has too many parts: ${message}`);
    if (status && status >= 400 && status < 500) throw badField('body', `is not a readable form: ${message}`);
    throw error;
  }
  return { fields, files };
}

function jsonForm(body: unknown, limits: FormLimits): ReadForm {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw badField('body', 'must be multipart/form-data, or a JSON object of text fields');
  }
  const fields: Record<string, string> = {};
  for (const [field, value] of Object.entries(body)) {
    if (limits.fileFields.includes(field)) throw badField(field, 'files are sent as multipart/form-data');
    if (!limits.textFields.includes(field)) throw badField(field, 'is not a field of this form');
    if (value === null || value === undefined) continue;
    if (typeof value !== 'string') throw badField(field, 'must be a string');
    if (Buffer.byteLength(value) > limits.maxTextBytes)
      throw tooLarge(field, `is larger than ${megabytes(limits.maxTextBytes)}`);
    fields[field] = value;
  }
  return { fields, files: [] };
}
