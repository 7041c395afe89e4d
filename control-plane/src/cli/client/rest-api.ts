/**
 * The `parley` client's one way into a running Parley: its public REST API with an API key (docs/architecture.md
 * §20), as any customer's script would call it — the commands may run on another machine than the platform. Every
 * refusal becomes a CliError that says what went wrong in the server's words and, where the fix is on the user's
 * side (the address, the key), what to do.
 */
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { CliError } from '../cli-error.ts';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
export type Query = Record<string, string | number | boolean | undefined>;

/** Told how many bytes have gone (or come) so far, of `total` when the size is known. */
export type ProgressListener = (done: number, total: number | undefined) => void;

/** A body sent as it is, with its own content type (a file upload), its bytes counted as they go. */
export interface RawBody {
  bytes: Uint8Array;
  contentType: string;
}

export interface RequestOptions {
  query?: Query;
  /** A JSON body. */
  json?: unknown;
  /** A multipart/form-data body (the knowledge upload). */
  form?: FormData;
  /** A body sent as it is (the contacts upload). */
  raw?: RawBody;
  onProgress?: ProgressListener;
}

/** Bytes sent per chunk of a streamed upload: small enough that a progress bar moves on a 4 MB file. */
const UPLOAD_CHUNK_BYTES = 64 * 1024;

export class RestApi {
  readonly baseUrl: string;
  readonly #apiKey: string;

  constructor(baseUrl: string, apiKey: string) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
    this.#apiKey = apiKey;
  }

  /** The `data` of the answer's envelope; a non-2xx answer is a CliError with the server's message. */
  async request<T>(method: Method, path: string, options: RequestOptions = {}): Promise<T> {
    const res = await this.#send(method, path, options);
    const text = await res.text();
    const json = parseJson(text) as { data?: T } | undefined;
    if (!res.ok) throw refusal(method, path, res, text);
    if (json?.data === undefined)
      throw new CliError(`${method} ${path} answered ${res.status} without a JSON body: ${text.slice(0, 200)}`);
    return json.data;
  }

  /**
   * Streams a GET's body into `file` (written beside it, then renamed, so an interrupted download never leaves a
   * half file under the wanted name). Answers the bytes written and the answer's content type.
   */
  async download(
    path: string,
    file: string,
    options: { query?: Query; onProgress?: ProgressListener } = {},
  ): Promise<{ bytes: number; contentType: string }> {
    const res = await this.#send('GET', path, { query: options.query });
    if (!res.ok) throw refusal('GET', path, res, await res.text());
    const length = Number(res.headers.get('content-length'));
    const total = Number.isFinite(length) && length > 0 ? length : undefined;
    let bytes = 0;
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        bytes += chunk.length;
        options.onProgress?.(bytes, total);
        done(null, chunk);
      },
    });
    const partial = `${file}.part`;
    try {
      const body = res.body ? Readable.fromWeb(res.body as WebReadableStream) : Readable.from([]);
      await pipeline(body, counter, createWriteStream(partial));
      await rename(partial, file);
    } catch (error) {
      await rm(partial, { force: true });
      throw new CliError(`downloading ${path} into ${file} failed: ${(error as Error).message}`);
    }
    return { bytes, contentType: res.headers.get('content-type') ?? 'application/octet-stream' };
  }

  async #send(method: Method, path: string, options: RequestOptions): Promise<Response> {
    const url = `${this.baseUrl}/api/v1${path}${queryString(options.query)}`;
    const headers: Record<string, string> = { authorization: `Bearer ${this.#apiKey}` };
    let body: RequestInit['body'];
    let duplex: 'half' | undefined;
    const raw = options.raw ?? (options.form ? await encodeForm(options.form) : undefined);
    if (raw) {
      headers['content-type'] = raw.contentType;
      headers['content-length'] = String(raw.bytes.length);
      body = countedStream(raw.bytes, options.onProgress);
      duplex = 'half';
    } else if (options.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.json);
    }
    try {
      return await fetch(url, { method, headers, body, duplex } as RequestInit);
    } catch (error) {
      const cause = (error as Error).cause;
      throw new CliError(
        `Parley is not running at ${this.baseUrl} (${cause instanceof Error ? cause.message : String(error)}): ` +
          'start it with `npm start`, or say where it runs with --url, PARLEY_URL or `parley login`',
      );
    }
  }
}

function queryString(query: Query | undefined): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) if (value !== undefined) params.set(name, String(value));
  const search = params.toString();
  return search ? `?${search}` : '';
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A non-2xx answer: its status and the server's reason, for callers that explain some statuses their own way. */
export class RestRefusal extends CliError {
  override name = 'RestRefusal';
  constructor(
    message: string,
    readonly status: number,
    readonly reason: string,
  ) {
    super(message);
  }
}

/** The server's refusal in its own words: the envelope's message (a 400's names each failing field). */
function refusal(method: Method, path: string, res: Response, text: string): RestRefusal {
  const json = parseJson(text) as { message?: string; error?: string } | undefined;
  const reason = json?.message ?? json?.error ?? (text.slice(0, 200) || res.statusText);
  const message =
    res.status === 401
      ? `Parley refused the API key (401: ${reason}): pass one with --key, PARLEY_API_KEY or \`parley login\``
      : `${method} ${path} failed with ${res.status}: ${reason}`;
  return new RestRefusal(message, res.status, reason);
}

/** The multipart encoding of `form` exactly as fetch would send it, as bytes, so their sending can be counted. */
async function encodeForm(form: FormData): Promise<RawBody> {
  const encoded = new Response(form);
  return {
    bytes: new Uint8Array(await encoded.arrayBuffer()),
    contentType: encoded.headers.get('content-type')!,
  };
}

/** `bytes` as a stream of chunks, each counted when fetch pulls it onto the socket. */
function countedStream(bytes: Uint8Array, onProgress: ProgressListener | undefined): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.length) {
        controller.close();
        return;
      }
      const chunk = bytes.subarray(offset, offset + UPLOAD_CHUNK_BYTES);
      offset += chunk.length;
      controller.enqueue(chunk);
      onProgress?.(offset, bytes.length);
    },
  });
}
