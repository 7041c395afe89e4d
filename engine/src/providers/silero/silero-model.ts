/**
 * Silero VAD v5 (ONNX, MIT licence) run by onnxruntime-node: the probability that a 32 ms window of 16 kHz audio is
 * speech. One inference session per process serves every call; each call keeps its own recurrent state and the last
 * 64 samples before its window (the model was trained on windows preceded by that context).
 *
 * The model file is put in engine/models by the engine's postinstall (scripts/install-silero-model.mjs).
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { InferenceSession, Tensor } from 'onnxruntime-node';

/** Samples per window at 16 kHz: the only window size Silero v5 accepts at that rate. */
export const SILERO_WINDOW_SAMPLES = 512;
export const SILERO_SAMPLE_RATE = 16_000;
const CONTEXT_SAMPLES = 64;
/** The recurrent state: 2 × 1 × 128 floats. */
const STATE_SHAPE = [2, 1, 128] as const;

export const DEFAULT_SILERO_MODEL_PATH = fileURLToPath(new URL('../../../models/silero_vad_v5.onnx', import.meta.url));

type OnnxRuntime = typeof import('onnxruntime-node');

export class SileroModel {
  readonly #ort: OnnxRuntime;
  readonly #session: InferenceSession;
  readonly #sampleRate: Tensor;
  #closed: Promise<void> | undefined;

  private constructor(ort: OnnxRuntime, session: InferenceSession) {
    this.#ort = ort;
    this.#session = session;
    this.#sampleRate = new ort.Tensor('int64', BigInt64Array.from([BigInt(SILERO_SAMPLE_RATE)]), []);
  }

  /** Loads the model; rejects with a message naming the file when it is missing or unreadable. */
  static async load(path = DEFAULT_SILERO_MODEL_PATH): Promise<SileroModel> {
    if (!existsSync(path))
      throw new Error(
        `the Silero VAD model is not at ${path} (npm ci installs it; see engine/scripts/install-silero-model.mjs)`,
      );
    // Loaded on first use: only engine roles pay for the runtime's native library.
    const loaded = await import('onnxruntime-node');
    // A CommonJS package: Node puts its exports on `default`, loaders honouring `__esModule` (tsx) on the namespace.
    const ort = ('InferenceSession' in loaded ? loaded : (loaded as { default: OnnxRuntime }).default) as OnnxRuntime;
    // One thread per inference: a 32 ms window costs ~0.2 ms, and calls already run in parallel across the process.
    const session = await ort.InferenceSession.create(path, {
      intraOpNumThreads: 1,
      interOpNumThreads: 1,
      executionMode: 'sequential',
      graphOptimizationLevel: 'all',
    });
    return new SileroModel(ort, session);
  }

  /** A call's own detector state over this model. */
  stream(): SileroStream {
    return new SileroStream(this);
  }

  /** One window through the model: returns the speech probability and the next state. */
  async run(input: Float32Array, state: Tensor): Promise<{ probability: number; state: Tensor }> {
    const result = await this.#session.run({
      input: new this.#ort.Tensor('float32', input, [1, input.length]),
      state,
      sr: this.#sampleRate,
    });
    return { probability: (result.output!.data as Float32Array)[0]!, state: result.stateN! };
  }

  initialState(): Tensor {
    return new this.#ort.Tensor('float32', new Float32Array(STATE_SHAPE[0] * STATE_SHAPE[1] * STATE_SHAPE[2]), [
      ...STATE_SHAPE,
    ]);
  }

  /** Frees the native session; idempotent. */
  async close(): Promise<void> {
    this.#closed ??= this.#session.release();
    await this.#closed;
  }
}

/** One call's view of the model. Windows must be evaluated one at a time, in order: each needs the last's state. */
export class SileroStream {
  readonly #model: SileroModel;
  #state: Tensor;
  readonly #input = new Float32Array(CONTEXT_SAMPLES + SILERO_WINDOW_SAMPLES);

  constructor(model: SileroModel) {
    this.#model = model;
    this.#state = model.initialState();
  }

  /** Speech probability (0–1) of the next 512-sample window of 16 kHz audio, scaled to −1…1. */
  async probability(window: Float32Array): Promise<number> {
    if (window.length !== SILERO_WINDOW_SAMPLES)
      throw new RangeError(`a Silero window is ${SILERO_WINDOW_SAMPLES} samples, got ${window.length}`);
    this.#input.set(window, CONTEXT_SAMPLES);
    // The runtime may read the input after this method yields, so it gets its own copy.
    const { probability, state } = await this.#model.run(this.#input.slice(), this.#state);
    this.#state = state;
    this.#input.copyWithin(0, SILERO_WINDOW_SAMPLES, SILERO_WINDOW_SAMPLES + CONTEXT_SAMPLES);
    return probability;
  }

  /** Forgets the past: the next window starts a new stretch of audio. */
  reset(): void {
    this.#state = this.#model.initialState();
    this.#input.fill(0);
  }
}
