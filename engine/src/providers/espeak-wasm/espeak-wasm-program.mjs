#!/usr/bin/env node
/**
 * espeak-ng built to WebAssembly (npm package `espeak-ng`, GPL-3.0-or-later) as a program of its own. Parley runs
 * it as a child process, exactly as it runs Debian's espeak-ng binary, and never loads it into its own process:
 * this file is the whole of what touches the GPL code, and it talks to Parley over pipes only.
 *
 * Long-lived: starting node and compiling the 18 MB module costs ~2 s of CPU, a fresh instance ~0.3 s more, and one
 * utterance on a ready instance ~40 ms (measured on the 2-core CI machine: a 2.2 s sentence in 50-95 ms, against
 * 2-3 s for a program per utterance). So the module is compiled once, one instance is kept initialised ahead of
 * the next request (a request right behind another waits for it: 0.25-0.7 s there), and requests are served one at
 * a time, in order, over stdin/stdout:
 *
 * - stdin, one JSON object per line:
 *   `{"id":1,"say":{"text":"Hello","voice":"en-us","wpm":175}}`: the text spoken, as a WAV (PCM16 mono, 22 050 Hz);
 *   `{"id":2,"list":"voices"}` or `{"id":3,"list":"variant"}`: what `espeak-ng --voices[=variant]` prints.
 * - stdout, per request in order: one JSON line `{"id":1,"ok":true,"bytes":N}` followed by exactly N bytes (the
 *   WAV; 0 for a listing, whose text is in the line's `text`), or `{"id":1,"ok":false,"error":"...","bytes":0}`.
 *
 * It exits when stdin ends, so it never outlives the process that started it.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';
import ESpeakNg from 'espeak-ng';

/** Where the text and the audio live in the instance's in-memory file system. */
const TEXT_FILE = '/request.txt';
const WAV_FILE = '/speech.wav';

// The module's own loader would read and compile the .wasm again for every instance; compiled once here instead.
const wasmPath = createRequire(import.meta.url).resolve('espeak-ng/dist/espeak-ng.wasm');
const wasmModule = await WebAssembly.compile(readFileSync(wasmPath));

/** One initialised espeak-ng instance, ready to run main once (espeak-ng keeps global state, so never twice). */
async function prepareInstance() {
  const output = { stdout: [], stderr: [] };
  let exports;
  const module = await ESpeakNg({
    noInitialRun: true,
    print: (line) => output.stdout.push(line),
    printErr: (line) => output.stderr.push(line),
    // exit() inside espeak-ng: unwind main with the status instead of touching this process.
    quit: (status, toThrow) => {
      throw toThrow ?? { status };
    },
    instantiateWasm(imports, done) {
      WebAssembly.instantiate(wasmModule, imports).then((instance) => {
        exports = instance.exports;
        done(instance, wasmModule);
      });
      return {};
    },
  });
  return { module, exports, output };
}

/** Runs espeak-ng's main with `args` on a prepared instance; returns its exit status. */
function runMain({ module, exports }, args) {
  const argv = ['espeak-ng', ...args].map((arg) => Buffer.from(`${arg}\0`, 'utf8'));
  const argvPointer = exports.stackAlloc((argv.length + 1) * 4);
  for (const [index, arg] of argv.entries()) {
    const pointer = exports.stackAlloc(arg.length);
    new Uint8Array(exports.memory.buffer).set(arg, pointer);
    new Uint32Array(exports.memory.buffer)[(argvPointer >> 2) + index] = pointer;
  }
  new Uint32Array(exports.memory.buffer)[(argvPointer >> 2) + argv.length] = 0;
  try {
    return module._main(argv.length, argvPointer);
  } catch (error) {
    if (typeof error?.status === 'number') return error.status;
    throw error;
  } finally {
    process.exitCode = undefined; // the runtime records espeak-ng's status as ours
  }
}

function serve(instance, request) {
  if (request.say) {
    const { text, voice, wpm } = request.say;
    instance.module.FS.writeFile(TEXT_FILE, String(text));
    // -f: the text from a file, so a text that starts with `-` is never taken for an option. -b 1: it is UTF-8.
    const args = ['-b', '1', '-v', String(voice), '-s', String(wpm), '-w', WAV_FILE, '-f', TEXT_FILE];
    const status = runMain(instance, args);
    if (status !== 0) return failure(request.id, status, instance.output.stderr);
    return { header: { id: request.id, ok: true }, body: instance.module.FS.readFile(WAV_FILE) };
  }
  if (request.list === 'voices' || request.list === 'variant') {
    const status = runMain(instance, [request.list === 'voices' ? '--voices' : '--voices=variant']);
    if (status !== 0) return failure(request.id, status, instance.output.stderr);
    return { header: { id: request.id, ok: true, text: `${instance.output.stdout.join('\n')}\n` } };
  }
  return { header: { id: request.id, ok: false, error: 'unknown request' } };
}

function failure(id, status, stderr) {
  // The runtime's own note on exit is noise; espeak-ng's message is the line before it.
  const said = stderr.filter((line) => !line.startsWith('program exited')).join(' ');
  return { header: { id, ok: false, error: `espeak-ng exited ${status}${said ? `: ${said}` : ''}` } };
}

function warm() {
  const instance = prepareInstance();
  instance.catch(() => undefined);
  return instance;
}

function reply({ header, body }) {
  const bytes = body?.length ?? 0;
  process.stdout.write(`${JSON.stringify({ ...header, bytes })}\n`);
  if (bytes > 0) process.stdout.write(body);
}

/** The instance the next request runs on; a failure to prepare it is that request's failure, not a crash now. */
let next = warm();
let queue = Promise.resolve();
const lines = createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY });
lines.on('line', (line) => {
  if (line.trim() === '') return;
  queue = queue.then(async () => {
    let request;
    try {
      request = JSON.parse(line);
    } catch {
      reply({ header: { id: null, ok: false, error: 'request is not JSON' } });
      return;
    }
    let instance;
    try {
      instance = await next;
    } catch (error) {
      reply({ header: { id: request.id, ok: false, error: `espeak-ng did not start: ${error?.message ?? error}` } });
      return;
    } finally {
      next = warm(); // warmed while this request is served and its reply travels
    }
    try {
      reply(serve(instance, request));
    } catch (error) {
      reply({ header: { id: request.id, ok: false, error: `espeak-ng failed: ${error?.message ?? error}` } });
    }
  });
});
lines.on('close', () => queue.then(() => process.exit(0)));
