/**
 * Running the local speech programs (flite, espeak-ng, pocketsphinx_continuous) safely: no shell (arguments go as
 * an array, so any text is just bytes), SIGKILL on abort or deadline so no child outlives its request, and the
 * tail of stderr kept for the error message when a program fails. Every function takes the name of the provider
 * it runs for first: the ProviderError it fails with names that provider.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import { ProviderError } from '../provider-error.ts';

/** stderr bytes kept per process for error messages: the last few lines are what say why it failed. */
const STDERR_TAIL_BYTES = 2048;

/**
 * The path to run for `binary`: a name with a slash must be an executable file there; a bare name is looked up on
 * `searchPath` (PATH), which is where Debian's packages put them (/usr/bin).
 * @throws ProviderError `provider_unavailable` naming the program and what to install
 */
export function resolveExecutable(
  provider: string,
  binary: string,
  installHint: string,
  searchPath = process.env.PATH ?? '',
): string {
  const candidates = binary.includes('/')
    ? [binary]
    : searchPath
        .split(path.delimiter)
        .filter(Boolean)
        .map((dir) => path.join(dir, binary));
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here; try the next directory
    }
  }
  throw new ProviderError(
    'provider_unavailable',
    provider,
    `${binary} is not installed or not executable (${installHint})`,
  );
}

/**
 * @throws ProviderError `provider_unavailable` when `file` cannot be read
 * @param what what the file is, for the message ("acoustic model")
 */
export function requireReadable(provider: string, file: string, what: string, installHint: string): void {
  try {
    accessSync(file, constants.R_OK);
  } catch (cause) {
    throw new ProviderError('provider_unavailable', provider, `${what} not readable at ${file} (${installHint})`, {
      cause,
    });
  }
}

export interface LocalProcessOptions {
  /** Aborting kills the process; `finished` then resolves (an abort is not a failure). */
  signal?: AbortSignal;
  /** Kills the process and fails `finished` with `upstream_timeout` after this many ms; see also `armDeadline`. */
  timeoutMs?: number;
  /** Whether the process reads stdin (otherwise it gets /dev/null). */
  stdin?: boolean;
}

/** One run of a local program. */
export class LocalProcess {
  readonly child: ChildProcess;
  /** Resolves when the process exited 0 or was killed by abort/`kill()`; rejects with a ProviderError otherwise. */
  readonly finished: Promise<void>;
  readonly #provider: string;
  readonly #label: string;
  readonly #signal: AbortSignal | undefined;
  #stderr = Buffer.alloc(0);
  #deadline: NodeJS.Timeout | undefined;
  #timedOut = false;
  #killedByUs = false;
  #exited = false;

  constructor(provider: string, binary: string, args: readonly string[], options: LocalProcessOptions = {}) {
    this.#provider = provider;
    this.#label = path.basename(binary);
    this.#signal = options.signal;
    this.child = spawn(binary, args, { stdio: [options.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'], shell: false });
    // A program that exits before reading all its input makes our writes fail with EPIPE; its exit status says more.
    this.child.stdin?.on('error', () => undefined);
    this.child.stderr?.on('data', (chunk: Buffer) => {
      this.#stderr = Buffer.concat([this.#stderr, chunk]);
      if (this.#stderr.length > STDERR_TAIL_BYTES) this.#stderr = this.#stderr.subarray(-STDERR_TAIL_BYTES);
    });
    const onAbort = () => this.kill();
    this.#signal?.addEventListener('abort', onAbort, { once: true });
    if (options.timeoutMs !== undefined) this.armDeadline(options.timeoutMs);
    this.finished = new Promise<void>((resolve, reject) => {
      const settle = (error: ProviderError | undefined) => {
        this.#exited = true;
        clearTimeout(this.#deadline);
        this.#signal?.removeEventListener('abort', onAbort);
        if (error) reject(error);
        else resolve();
      };
      this.child.once('error', (cause: NodeJS.ErrnoException) => {
        const code = cause.code === 'ENOENT' || cause.code === 'EACCES' ? 'provider_unavailable' : 'provider_failed';
        settle(
          new ProviderError(code, this.#provider, `${this.#label} could not be started: ${cause.message}`, { cause }),
        );
      });
      this.child.once('close', (exitCode, signal) => {
        if (this.#timedOut)
          settle(
            new ProviderError(
              'upstream_timeout',
              this.#provider,
              `${this.#label} did not finish in time and was killed`,
            ),
          );
        else if (this.#killedByUs || exitCode === 0) settle(undefined);
        else
          settle(
            new ProviderError(
              'provider_failed',
              this.#provider,
              `${this.#label} failed (${exitCode === null ? `signal ${signal}` : `exit ${exitCode}`})${this.#stderrTail()}`,
            ),
          );
      });
    });
    // Callers that stop caring (an aborted consumer) need not await it; a failure is still reported to those who do.
    this.finished.catch(() => undefined);
    if (this.#signal?.aborted) this.kill();
  }

  /** Kills the process if still running, as an expected end (`finished` resolves). Idempotent. */
  kill(): void {
    if (this.#exited || this.#killedByUs) return;
    this.#killedByUs = true;
    this.child.kill('SIGKILL');
  }

  /** (Re)starts the deadline: `ms` from now the process is killed and `finished` fails with `upstream_timeout`. */
  armDeadline(ms: number): void {
    clearTimeout(this.#deadline);
    this.#deadline = setTimeout(() => {
      if (this.#exited || this.#killedByUs) return;
      this.#timedOut = true;
      this.child.kill('SIGKILL');
    }, ms);
    this.#deadline.unref();
  }

  #stderrTail(): string {
    const text = this.#stderr.toString('utf8').trim();
    return text === '' ? '' : `: ${text.split('\n').slice(-3).join(' | ')}`;
  }
}

/** Runs a program to completion and returns its stdout (for voice listings). Stops reading at `maxBytes`. */
export async function runForOutput(
  provider: string,
  binary: string,
  args: readonly string[],
  timeoutMs: number,
  maxBytes: number,
): Promise<string> {
  const run = new LocalProcess(provider, binary, args, { timeoutMs });
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of run.child.stdout as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) {
      run.kill();
      throw new ProviderError(
        'provider_failed',
        provider,
        `${path.basename(binary)} wrote more than ${maxBytes} bytes`,
      );
    }
    chunks.push(chunk);
  }
  await run.finished;
  return Buffer.concat(chunks).toString('utf8');
}

export interface StreamOptions {
  signal: AbortSignal;
  timeoutMs: number;
  /** Written to the program's stdin, which is then closed; without it stdin is /dev/null. */
  input?: string;
}

/**
 * The stdout of one run as it arrives. Ends early and quietly when `signal` aborts (the process is killed at once);
 * a consumer that stops iterating kills it too; a failed run rejects the iteration after its output.
 */
export async function* processStdout(
  provider: string,
  binary: string,
  args: readonly string[],
  options: StreamOptions,
): AsyncGenerator<Buffer> {
  if (options.signal.aborted) return;
  const run = new LocalProcess(provider, binary, args, {
    signal: options.signal,
    timeoutMs: options.timeoutMs,
    stdin: options.input !== undefined,
  });
  try {
    if (options.input !== undefined) run.child.stdin?.end(options.input, 'utf8');
    try {
      for await (const chunk of run.child.stdout as AsyncIterable<Buffer>) {
        if (options.signal.aborted) return;
        yield chunk;
      }
    } catch (cause) {
      // A program that could not start also breaks its pipes: its exit status is the error worth reporting.
      await run.finished;
      if (options.signal.aborted) return;
      throw cause;
    }
    await run.finished;
  } finally {
    run.kill();
    // SIGKILL ends it within milliseconds; waiting means no child outlives the iteration, not even as a zombie.
    await run.finished.catch(() => undefined);
  }
}
