/**
 * A call's recording: stereo Ogg Opus, the caller on the left and the agent on the right, aligned on the process's
 * pacing clock. Each tick writes 20 ms of each side — the caller's oldest waiting frame and the agent's frame that
 * went out since the last tick, silence where there is none — so both channels keep the call's own timeline
 * however the transport delivered the audio.
 *
 * Caller audio that arrives faster than real time waits in a bounded queue; past CALLER_BACKLOG_FRAMES the oldest
 * frame is dropped (and counted): a recording may lose part of a burst, never drift away from the agent's channel.
 */
import type { ByteSink } from '../audio/byte-sink.ts';
import { ENGINE_FRAME_SAMPLES, ENGINE_SAMPLE_RATE } from '../audio/format.ts';
import { Framer } from '../audio/framer.ts';
import { OggOpusWriter } from '../audio/ogg-opus-writer.ts';
import type { ClockOutput } from '../audio/pacing-clock.ts';

/** What the recording is stored as. */
export const RECORDING_FORMAT = 'audio/ogg';
/** Caller frames waiting at most: half a second of a burst; a transport steadily ahead of the clock is a bug there. */
const CALLER_BACKLOG_FRAMES = 25;
/** Agent frames waiting at most: a reply's first frame leaves between ticks, so two can meet in one tick. */
const AGENT_BACKLOG_FRAMES = 5;

export class CallRecorder implements ClockOutput {
  readonly #writer: OggOpusWriter;
  readonly #caller: Int16Array[] = [];
  readonly #agent: Int16Array[] = [];
  /** Transports may deliver chunks of any length: each side is cut into the clock's 20 ms frames first. */
  readonly #callerFramer = new Framer(ENGINE_FRAME_SAMPLES);
  readonly #agentFramer = new Framer(ENGINE_FRAME_SAMPLES);
  readonly #stereo = new Int16Array(ENGINE_FRAME_SAMPLES * 2);
  #closing: Promise<number> | undefined;
  /** Frames dropped from the queues. */
  dropped = 0;

  constructor(sink: ByteSink, tags: Readonly<Record<string, string>> = {}) {
    this.#writer = new OggOpusWriter(sink, { sampleRate: ENGINE_SAMPLE_RATE, channels: 2, tags });
  }

  /** A frame of the caller's audio (16 kHz PCM16), as the session received it. */
  caller(samples: Int16Array): void {
    for (const frame of this.#callerFramer.push(samples)) this.#push(this.#caller, frame, CALLER_BACKLOG_FRAMES);
  }

  /** A frame of the agent's audio (16 kHz PCM16), as it went out to the transport. */
  agent(samples: Int16Array): void {
    for (const frame of this.#agentFramer.push(samples)) this.#push(this.#agent, frame, AGENT_BACKLOG_FRAMES);
  }

  get durationMs(): number {
    return this.#writer.durationMs;
  }

  // The PacingClock's view.
  get closed(): boolean {
    return this.#closing !== undefined;
  }

  tick(): void {
    if (this.#closing) return;
    const left = this.#caller.shift();
    const right = this.#agent.shift();
    const stereo = this.#stereo;
    for (let i = 0; i < ENGINE_FRAME_SAMPLES; i += 1) {
      stereo[2 * i] = left?.[i] ?? 0;
      stereo[2 * i + 1] = right?.[i] ?? 0;
    }
    this.#writer.write(stereo);
  }

  /** Finishes the file; resolves with its duration in ms. Idempotent. */
  close(): Promise<number> {
    this.#closing ??= this.#writer.close().then(() => Math.round(this.#writer.durationMs));
    return this.#closing;
  }

  #push(queue: Int16Array[], frame: Int16Array, limit: number): void {
    if (this.#closing) return;
    queue.push(frame);
    if (queue.length > limit) {
      queue.shift();
      this.dropped += 1;
    }
  }
}
