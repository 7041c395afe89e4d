/**
 * One `pocketsphinx_continuous` run: one utterance in on stdin as raw PCM16 (`-infile /dev/stdin`; a name without
 * `.wav` is read as headerless samples at `-samprate`), its words out on stdout once stdin closes. Audio can be
 * written while the model is still loading and while the caller is still speaking: the pipe (and Node's stream
 * buffer behind it) holds it, so the model load and most of the decoding overlap the speech.
 */
import { endianness } from 'node:os';
import { LocalProcess } from '../flite/local-process.ts';
import { cleanTranscript } from './transcript.ts';

/** Where pocketsphinx finds its model, and the program to run. */
export interface RecognizerConfig {
  binary: string;
  /** Acoustic model directory (`-hmm`). */
  hmm: string;
  /** Language model (`-lm`). */
  lm: string;
  /** Pronunciation dictionary (`-dict`). */
  dict: string;
  /** Hz of the audio written; the engine's 16 000. */
  sampleRate: number;
}

const HOST_IS_LITTLE_ENDIAN = endianness() === 'LE';

export class RecognizerRun {
  /** The words heard ('' for none); rejects with a SpeechProviderError when the program fails or times out. */
  readonly result: Promise<string>;
  readonly #process: LocalProcess;

  constructor(config: RecognizerConfig) {
    const args = [
      ['-hmm', config.hmm],
      ['-lm', config.lm],
      ['-dict', config.dict],
      ['-infile', '/dev/stdin'],
      ['-samprate', String(config.sampleRate)],
      ['-input_endian', 'little'],
      // ~200 lines of configuration and statistics per run on stderr otherwise; a failure still shows in the exit status.
      ['-logfn', '/dev/null'],
    ].flat();
    this.#process = new LocalProcess(config.binary, args, { stdin: true });
    const stdout: Buffer[] = [];
    this.#process.child.stdout?.on('data', (chunk: Buffer) => stdout.push(chunk));
    this.result = this.#process.finished.then(() => cleanTranscript(Buffer.concat(stdout).toString('utf8')));
    this.result.catch(() => undefined); // the stream reads it in order; a run killed on abort is never read
  }

  /** Adds samples of the utterance. Never blocks: Node buffers what the pipe cannot take yet. */
  write(samples: Int16Array): void {
    // A copy: the caller may reuse its frame buffer as soon as push() returns.
    const bytes = Buffer.from(samples.slice().buffer);
    if (!HOST_IS_LITTLE_ENDIAN) bytes.swap16();
    this.#process.child.stdin?.write(bytes);
  }

  /** The utterance is complete: pocketsphinx decodes the rest and prints; `deadlineMs` from now it is killed. */
  finishInput(deadlineMs: number): void {
    this.#process.child.stdin?.end();
    this.#process.armDeadline(deadlineMs);
  }

  kill(): void {
    this.#process.kill();
  }
}
