/** A speech recogniser that also keeps every frame it is given: what the call's session really heard. */
import type { SttProvider } from '../../../src/providers/stt-provider.ts';
import { concatPcm } from '../../fakes/carrier-sim/sim-format.ts';

export interface TappedStt {
  provider: SttProvider;
  /** All audio the recogniser was given since the last `reset`, 16 kHz. */
  heard(): Int16Array;
  reset(): void;
}

export function tappedStt(inner: SttProvider): TappedStt {
  let frames: Int16Array[] = [];
  return {
    heard: () => concatPcm(frames),
    reset: () => {
      frames = [];
    },
    provider: {
      name: inner.name,
      open(options, signal) {
        const stream = inner.open(options, signal);
        return {
          push: (samples) => {
            frames.push(samples.slice());
            stream.push(samples);
          },
          endOfUtterance: () => stream.endOfUtterance(),
          end: () => stream.end(),
          [Symbol.asyncIterator]: () => stream[Symbol.asyncIterator](),
        };
      },
    },
  };
}
