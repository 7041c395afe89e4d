/**
 * espeak-ng built to WebAssembly, from npm: the offline voice of a machine without Debian's flite or espeak-ng.
 * It runs as a child process (espeak-wasm-program.mjs), never in ours: espeak-ng is GPL-3.0-or-later.
 */
export {
  createEspeakWasmTts,
  ESPEAK_WASM_DEFAULT_VOICE,
  ESPEAK_WASM_MAX_TEXT_CHARS,
  EspeakWasmTtsProvider,
  type EspeakWasmTtsOptions,
} from './espeak-wasm-tts.ts';
export { ESPEAK_WASM_NAME } from './espeak-wasm-process.ts';
