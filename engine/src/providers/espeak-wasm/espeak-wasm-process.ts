/**
 * The espeak-wasm program (espeak-wasm-program.mjs) as one long-lived child of this process, started on first use
 * and started again on the next request after it dies. Starting it costs ~2 s of CPU (node, then compiling the
 * 18 MB WebAssembly module); an utterance on the running program 50-100 ms. It serves one request at a time, in
 * order, so replies are matched to requests by order (and checked by id). A child of ours, never a module in our
 * process: espeak-ng is GPL-3.0-or-later.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { ProviderError } from '../provider-error.ts';

/** The provider's name, which its errors carry. */
export const ESPEAK_WASM_NAME = 'espeak-wasm';

/** A reply's header line is ~100 bytes; far more means the program is writing something else to stdout. */
const MAX_HEADER_BYTES = 64 * 1024;
/** A clause's WAV is ~100 KB and ESPEAK_WASM_MAX_TEXT_CHARS of text ~15 MB; more is not a reply of ours. */
const MAX_BODY_BYTES = 64 * 1024 * 1024;
/** stderr kept for the message when the program dies: its last lines say why. */
const STDERR_TAIL_BYTES = 2048;

/** What the program answers to one request (see espeak-wasm-program.mjs). */
export interface ProgramReply {
  /** The request's output: the WAV of a `say`, empty for a listing. */
  body: Buffer;
  /** A listing's text. */
  text?: string;
}

interface ReplyHeader {
  id: number | null;
  ok: boolean;
  bytes: number;
  error?: string;
  text?: string;
}

interface Pending {
  id: number;
  resolve(reply: ProgramReply): void;
  reject(error: ProviderError): void;
  deadline: NodeJS.Timeout;
}

interface Running {
  child: ChildProcess;
  stdin: Writable;
  pending: Pending[];
  input: Buffer;
  header: ReplyHeader | undefined;
  stderr: Buffer;
}

export class EspeakWasmProcess {
  readonly #program: string;
  readonly #node: string;
  #running: Running | undefined;
  #nextId = 1;

  /**
   * @param program path of espeak-wasm-program.mjs
   * @param node the node executable that runs it; this process's own by default
   */
  constructor(program: string, node = process.execPath) {
    this.#program = program;
    this.#node = node;
  }

  /** Starts the program now, so that the first request does not wait for it to load. */
  start(): void {
    this.#ensureRunning();
  }

  /**
   * Sends one request (`{ say: … }` or `{ list: … }`) and resolves with its reply.
   * @throws ProviderError `provider_failed` when the program refuses it or dies; `upstream_timeout` when it does not
   *   answer within `timeoutMs` (it is then killed, and started afresh for the next request)
   */
  request(message: Record<string, unknown>, timeoutMs: number): Promise<ProgramReply> {
    const running = this.#ensureRunning();
    const id = this.#nextId++;
    return new Promise<ProgramReply>((resolve, reject) => {
      // Ref'd, unlike the child and its pipes: a request in flight keeps this process alive until it is answered.
      const deadline = setTimeout(() => {
        this.#stop(
          running,
          new ProviderError('upstream_timeout', ESPEAK_WASM_NAME, `espeak-wasm did not answer in ${timeoutMs} ms`),
        );
      }, timeoutMs);
      running.pending.push({ id, resolve, reject, deadline });
      running.stdin.write(`${JSON.stringify({ id, ...message })}\n`);
    });
  }

  /** Stops the program and resolves once it has exited; requests in flight fail. A later request starts it again. */
  async close(): Promise<void> {
    const running = this.#running;
    if (running === undefined) return;
    const exited = new Promise<void>((resolve) => {
      if (running.child.exitCode !== null || running.child.signalCode !== null) resolve();
      else running.child.once('exit', () => resolve());
    });
    this.#stop(running, new ProviderError('provider_failed', ESPEAK_WASM_NAME, 'espeak-wasm was closed'));
    await exited;
  }

  #ensureRunning(): Running {
    if (this.#running) return this.#running;
    const child = spawn(this.#node, [this.#program], { stdio: ['pipe', 'pipe', 'pipe'], shell: false });
    const running: Running = {
      child,
      stdin: child.stdin!,
      pending: [],
      input: Buffer.alloc(0),
      header: undefined,
      stderr: Buffer.alloc(0),
    };
    this.#running = running;
    // An idle program must not keep this process alive: neither the child nor its pipes hold the event loop.
    child.unref();
    for (const stream of [child.stdin, child.stdout, child.stderr]) unrefPipe(stream);
    running.stdin.on('error', () => undefined); // a dead child's EPIPE; its exit says more
    child.stdout!.on('data', (chunk: Buffer) => this.#receive(running, chunk));
    child.stderr!.on('data', (chunk: Buffer) => {
      running.stderr = Buffer.concat([running.stderr, chunk]).subarray(-STDERR_TAIL_BYTES);
    });
    child.once('error', (cause) =>
      this.#stop(
        running,
        new ProviderError(
          'provider_unavailable',
          ESPEAK_WASM_NAME,
          `espeak-wasm could not be started: ${cause.message}`,
        ),
      ),
    );
    child.once('exit', (code, signal) => {
      const tail = running.stderr.toString('utf8').trim();
      this.#stop(
        running,
        new ProviderError(
          'provider_failed',
          ESPEAK_WASM_NAME,
          `espeak-wasm exited (${code === null ? `signal ${signal}` : `exit ${code}`})${tail ? `: ${tail}` : ''}`,
        ),
      );
    });
    return running;
  }

  /** Reads replies as they arrive: a header line, then exactly its `bytes` of body. */
  #receive(running: Running, chunk: Buffer): void {
    running.input = Buffer.concat([running.input, chunk]);
    for (;;) {
      if (running.header === undefined) {
        const newline = running.input.indexOf(10);
        if (newline < 0) {
          if (running.input.length > MAX_HEADER_BYTES) this.#protocolError(running, 'a reply header without end');
          return;
        }
        const header = parseHeader(running.input.subarray(0, newline));
        if (header === undefined) return this.#protocolError(running, 'a reply header that is not one');
        running.header = header;
        running.input = running.input.subarray(newline + 1);
      }
      if (running.input.length < running.header.bytes) return;
      const body = Buffer.from(running.input.subarray(0, running.header.bytes));
      running.input = running.input.subarray(running.header.bytes);
      const header = running.header;
      running.header = undefined;
      this.#settle(running, header, body);
    }
  }

  #settle(running: Running, header: ReplyHeader, body: Buffer): void {
    const pending = running.pending.shift();
    if (pending === undefined || (header.id !== null && header.id !== pending.id)) {
      if (pending) running.pending.unshift(pending);
      return this.#protocolError(running, `a reply to request ${header.id} out of order`);
    }
    clearTimeout(pending.deadline);
    if (header.ok) pending.resolve({ body, ...(header.text === undefined ? {} : { text: header.text }) });
    else pending.reject(new ProviderError('provider_failed', ESPEAK_WASM_NAME, header.error ?? 'request failed'));
  }

  #protocolError(running: Running, what: string): void {
    this.#stop(running, new ProviderError('provider_failed', ESPEAK_WASM_NAME, `espeak-wasm wrote ${what}`));
  }

  /** Kills the program (if still running) and fails what it had not answered. Idempotent. */
  #stop(running: Running, error: ProviderError): void {
    if (this.#running === running) this.#running = undefined;
    if (running.child.exitCode === null && running.child.signalCode === null) running.child.kill('SIGKILL');
    for (const pending of running.pending.splice(0)) {
      clearTimeout(pending.deadline);
      pending.reject(error);
    }
  }
}

function parseHeader(line: Buffer): ReplyHeader | undefined {
  try {
    const header = JSON.parse(line.toString('utf8')) as Partial<ReplyHeader>;
    const bytes = header.bytes;
    if (typeof bytes !== 'number' || !Number.isInteger(bytes) || bytes < 0 || bytes > MAX_BODY_BYTES) return undefined;
    if (typeof header.ok !== 'boolean') return undefined;
    return { ...header, id: typeof header.id === 'number' ? header.id : null, ok: header.ok, bytes };
  } catch {
    return undefined;
  }
}

/** Child pipes are sockets, whose unref() lets the event loop end while they are open. */
function unrefPipe(stream: Readable | Writable | null): void {
  (stream as unknown as { unref?: () => void } | null)?.unref?.();
}
