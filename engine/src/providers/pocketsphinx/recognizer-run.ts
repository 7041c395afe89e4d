/**
 * One `pocketsphinx_continuous` run: one utterance in as raw PCM16, its words out on stdout once the input ends.
 *
 * The audio goes through a named pipe (`-infile <fifo>`), not stdin: pocketsphinx opens its input by name, and
 * /dev/stdin cannot be opened when stdin is the socket pair Node gives a child. The fifo is what lets audio be
 * written while the caller is still speaking, so the model load and most of the decoding overlap the speech.
 * pocketsphinx opens the fifo once its model is loaded (~0.35 s); until then audio waits here. We open our end
 * write-only and non-blocking, which fails (ENXIO) until the reader is there, so we poll: a blocking open would
 * hold a libuv thread-pool thread for the whole load, and opening read-write (which never waits) would let us
 * close before the reader arrived, and a fifo with no one on either end forgets its data — the reader then waits
 * for a writer forever. Writes go through a net.Socket, which buffers what the pipe cannot take yet (never
 * blocking the event loop); closing it is the end of input pocketsphinx sees.
 */
import { execFile } from 'node:child_process';
import { constants, open } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { Socket } from 'node:net';
import { endianness, tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { LocalProcess } from '../local/local-process.ts';
import { ProviderError } from '../provider-error.ts';
import { cleanTranscript } from './transcript.ts';

/** The provider's name (PocketsphinxSttProvider's `name`), which its errors carry. */
export const POCKETSPHINX_NAME = 'pocketsphinx';

/** Where pocketsphinx finds its model, and the programs to run. */
export interface RecognizerConfig {
  binary: string;
  /** coreutils' mkfifo, resolved once at start. */
  mkfifo: string;
  /** Acoustic model directory (`-hmm`). */
  hmm: string;
  /** Language model (`-lm`). */
  lm: string;
  /** Pronunciation dictionary (`-dict`). */
  dict: string;
  /** Hz of the audio written; the engine's 16 000. */
  sampleRate: number;
}

/** mkfifo exits in a millisecond; 5 s means the machine is stuck. */
const MKFIFO_TIMEOUT_MS = 5_000;
/** How often to try opening the fifo while pocketsphinx loads (~0.35 s): adds at most this to the load, ~35 tries. */
const FIFO_OPEN_POLL_MS = 10;
const HOST_IS_LITTLE_ENDIAN = endianness() === 'LE';
const execFileAsync = promisify(execFile);
const openAsync = promisify(open);

export class RecognizerRun {
  /** The words heard ('' for none, or when killed); rejects with a ProviderError when the program fails. */
  readonly result: Promise<string>;
  /** Audio written before the fifo was open. */
  #early: Buffer[] = [];
  #input: Socket | undefined;
  #process: LocalProcess | undefined;
  #deadlineMs: number | undefined;
  #killed = false;

  constructor(config: RecognizerConfig) {
    this.result = this.#run(config);
    this.result.catch(() => undefined); // the stream reads it in order; a run killed on abort is never read
  }

  /** Adds samples of the utterance. Never blocks. */
  write(samples: Int16Array): void {
    if (this.#killed) return;
    // A copy: the caller may reuse its frame buffer as soon as push() returns.
    const bytes = Buffer.from(samples.slice().buffer);
    if (!HOST_IS_LITTLE_ENDIAN) bytes.swap16();
    if (this.#input) this.#input.write(bytes);
    else this.#early.push(bytes);
  }

  /** The utterance is complete: pocketsphinx decodes the rest and prints; `deadlineMs` from now it is killed. */
  finishInput(deadlineMs: number): void {
    if (this.#deadlineMs !== undefined) return;
    this.#deadlineMs = deadlineMs;
    if (this.#input) this.#endInput();
  }

  kill(): void {
    this.#killed = true;
    this.#early = [];
    this.#process?.kill();
    this.#input?.destroy();
  }

  #endInput(): void {
    this.#input?.end();
    if (this.#deadlineMs !== undefined) this.#process?.armDeadline(this.#deadlineMs);
  }

  async #run(config: RecognizerConfig): Promise<string> {
    const dir = await mkdtemp(path.join(tmpdir(), 'parley-pocketsphinx-'));
    try {
      // Not *.wav: pocketsphinx would expect a header; any other name is read as raw samples at -samprate.
      const fifo = path.join(dir, 'utterance.raw');
      await execFileAsync(config.mkfifo, ['-m', '600', fifo], { timeout: MKFIFO_TIMEOUT_MS }).catch(
        (cause: unknown) => {
          throw new ProviderError('provider_failed', POCKETSPHINX_NAME, `mkfifo failed for pocketsphinx's audio`, {
            cause,
          });
        },
      );
      if (this.#killed) return '';
      const run = new LocalProcess(POCKETSPHINX_NAME, config.binary, [
        ...['-hmm', config.hmm, '-lm', config.lm, '-dict', config.dict],
        ...['-infile', fifo, '-samprate', String(config.sampleRate), '-input_endian', 'little'],
        // ~200 lines of configuration and statistics per run on stderr otherwise; failures show in the exit status.
        ...['-logfn', '/dev/null'],
      ]);
      this.#process = run;
      const stdout: Buffer[] = [];
      run.child.stdout?.on('data', (chunk: Buffer) => stdout.push(chunk));
      let exited = false;
      const finished = run.finished.finally(() => {
        exited = true;
      });
      const fd = await openWhenReaderIsThere(fifo, () => exited || this.#killed).catch((cause: unknown) => {
        run.kill();
        throw new ProviderError('provider_failed', POCKETSPHINX_NAME, `could not open the audio fifo of pocketsphinx`, {
          cause,
        });
      });
      if (fd !== undefined) {
        const input = new Socket({ fd, readable: false, writable: true });
        // EPIPE if pocketsphinx exits before reading everything; its exit status is what reports the failure.
        input.on('error', () => undefined);
        this.#input = input;
        for (const bytes of this.#early) input.write(bytes);
        this.#early = [];
        if (this.#killed) input.destroy();
        else if (this.#deadlineMs !== undefined) this.#endInput();
      }
      // Both ends are open now, so the name has done its job: removing it at once leaves nothing behind for long
      // (a process that exits mid-run cannot strand more than the directory of a run still loading its model).
      await rm(dir, { recursive: true, force: true });
      try {
        await finished;
      } finally {
        this.#input?.destroy();
      }
      return this.#killed ? '' : cleanTranscript(Buffer.concat(stdout).toString('utf8'));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
}

/** Our write end of `fifo` once a reader has it open; undefined if `giveUp()` says to stop waiting. */
async function openWhenReaderIsThere(fifo: string, giveUp: () => boolean): Promise<number | undefined> {
  while (!giveUp()) {
    try {
      return await openAsync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENXIO') throw error;
    }
    await sleep(FIFO_OPEN_POLL_MS);
  }
  return undefined;
}
