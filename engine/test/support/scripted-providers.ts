/**
 * Providers that follow a script, standing in for a speech or language vendor where a test is about Parley's own
 * plumbing (worker streams, failover), not about a vendor's wire format. They implement the provider interfaces
 * exactly as the real providers do.
 */
import type { AudioChunk } from '../../src/audio/format.ts';
import type { LlmEvent, LlmProvider, LlmRequest } from '../../src/providers/llm-provider.ts';
import type { TtsProvider } from '../../src/providers/tts-provider.ts';
import type { SttEvent, SttOptions, SttProvider, SttStream } from '../../src/providers/stt-provider.ts';
import { Channel } from '../../src/streams/channel.ts';

/** Replies with the words of `reply`, one token each, after `gate` resolves (so a test can hold a turn open). */
export function scriptedLlm(
  reply: string,
  options: { name?: string; gate?: () => Promise<void>; tokenDelayMs?: number } = {},
): LlmProvider & { requests: LlmRequest[] } {
  const requests: LlmRequest[] = [];
  return {
    name: options.name ?? 'scripted-llm',
    requests,
    async *stream(request, signal): AsyncIterable<LlmEvent> {
      requests.push(request);
      await options.gate?.();
      for (const word of reply.split(' ')) {
        if (signal.aborted) return;
        if (options.tokenDelayMs) await new Promise((r) => setTimeout(r, options.tokenDelayMs));
        yield { type: 'token', text: `${word} ` };
      }
      yield { type: 'done', finishReason: 'stop' };
    },
  };
}

/** On each end of utterance, emits a final saying how many milliseconds of audio it heard in that utterance. */
export function countingStt(name = 'counting-stt'): SttProvider {
  return {
    name,
    open(_options: SttOptions, signal: AbortSignal): SttStream {
      const events = new Channel<SttEvent>(64, 'fail');
      let samples = 0;
      let offset = 0;
      signal.addEventListener('abort', () => events.end(), { once: true });
      return {
        push: (frame) => {
          samples += frame.length;
        },
        endOfUtterance: () => {
          const ms = samples / 16;
          events.push({ type: 'final', text: `heard ${ms} ms`, startMs: offset, endMs: offset + ms });
          offset += ms;
          samples = 0;
        },
        end: () => events.end(),
        [Symbol.asyncIterator]: () => events[Symbol.asyncIterator](),
      };
    },
  };
}

/**
 * Speaks any text as a tone, 60 ms per character at 16 kHz: real audio of a plausible length, so pacing, marks and
 * barge-in behave as with a real voice.
 */
export function toneTts(name = 'tone-tts', msPerChar = 60): TtsProvider & { spoken: string[] } {
  const spoken: string[] = [];
  return {
    name,
    spoken,
    async *synthesize(request, signal): AsyncIterable<AudioChunk> {
      spoken.push(request.text);
      const total = Math.round(request.text.length * msPerChar * 16);
      for (let at = 0; at < total && !signal.aborted; at += 1600) {
        const samples = Int16Array.from({ length: Math.min(1600, total - at) }, (_, i) =>
          Math.round(6000 * Math.sin((2 * Math.PI * 300 * (at + i)) / 16000)),
        );
        yield { samples, sampleRate: 16000 };
        await new Promise((r) => setImmediate(r));
      }
    },
    voices: async () => [{ id: 'tone', name: 'Tone', language: 'en' }],
  };
}

/** Hands out the next scripted transcript at each end of utterance that follows some speech. */
export function scriptedStt(transcripts: string[], name = 'scripted-stt'): SttProvider {
  return {
    name,
    open(_options: SttOptions, signal: AbortSignal): SttStream {
      const events = new Channel<SttEvent>(64, 'fail');
      let heard = 0;
      let offset = 0;
      signal.addEventListener('abort', () => events.end(), { once: true });
      return {
        // Only voiced audio counts, as a recogniser hears words and not the silence around them.
        push: (frame) => {
          if (frame.some((v) => Math.abs(v) > 1000)) heard += frame.length;
        },
        endOfUtterance: () => {
          if (heard === 0) return;
          const text = transcripts.shift();
          const ms = heard / 16;
          if (text) events.push({ type: 'final', text, startMs: offset, endMs: offset + ms });
          offset += ms;
          heard = 0;
        },
        end: () => events.end(),
        [Symbol.asyncIterator]: () => events[Symbol.asyncIterator](),
      };
    },
  };
}

export interface ScriptedReply {
  text?: string;
  toolCalls?: { name: string; arguments: string }[];
}

/** Answers each request with the next scripted reply (then repeats the last); records every request. */
export function scriptedChat(
  replies: ScriptedReply[],
  options: { tokenDelayMs?: number } = {},
): LlmProvider & { requests: LlmRequest[] } {
  const requests: LlmRequest[] = [];
  let next = 0;
  return {
    name: 'scripted-chat',
    requests,
    async *stream(request, signal): AsyncIterable<LlmEvent> {
      requests.push(structuredClone(request));
      const reply = replies[Math.min(next++, replies.length - 1)]!;
      for (const word of (reply.text ?? '').split(/(?<= )/)) {
        if (signal.aborted || !word) continue;
        await new Promise((r) => setTimeout(r, options.tokenDelayMs ?? 2));
        yield { type: 'token', text: word };
      }
      for (const [i, call] of (reply.toolCalls ?? []).entries())
        yield { type: 'tool_call', call: { id: `call_${next}_${i}`, ...call } };
      yield { type: 'done', finishReason: reply.toolCalls?.length ? 'tool_calls' : 'stop' };
    },
  };
}

/** Samples per 20 ms frame at 16 kHz, the frames `numberedToneTts` marks. */
const NUMBERED_FRAME_SAMPLES = 320;

/**
 * Speaks any text as a tone whose every 20 ms frame has a level of its own — 2 000 + 1 000 × request + 2 × frame —
 * so what reached the caller can be read back frame by frame (`frameNumber`) and checked for gaps and repeats.
 * 60 ms per character, as `toneTts`; requests are numbered in the order they start (clause order).
 */
export function numberedToneTts(msPerChar = 60): TtsProvider & { frames: number[]; texts: string[] } {
  /** Frames synthesised per request, and its text, by request number. */
  const frames: number[] = [];
  const texts: string[] = [];
  return {
    name: 'numbered-tone-tts',
    frames,
    texts,
    async *synthesize(request, signal): AsyncIterable<AudioChunk> {
      const index = frames.push(0) - 1;
      texts[index] = request.text;
      const total = Math.ceil((request.text.length * msPerChar) / 20);
      for (let frame = 0; frame < total && !signal.aborted; frame += 5) {
        const count = Math.min(5, total - frame);
        const samples = new Int16Array(count * NUMBERED_FRAME_SAMPLES);
        for (let f = 0; f < count; f += 1) {
          const level = 2_000 + 1_000 * index + 2 * (frame + f);
          for (let i = 0; i < NUMBERED_FRAME_SAMPLES; i += 1)
            samples[f * NUMBERED_FRAME_SAMPLES + i] = Math.round(level * Math.sin((2 * Math.PI * i) / 32));
        }
        frames[index] = frame + count;
        yield { samples, sampleRate: 16000 };
        await new Promise((r) => setImmediate(r));
      }
    },
    voices: async () => [{ id: 'tone', name: 'Tone', language: 'en' }],
  };
}

/** Which request and which of its frames a frame of `numberedToneTts` is. */
export function frameNumber(samples: Int16Array): { request: number; frame: number } {
  let peak = 0;
  for (const s of samples) peak = Math.max(peak, Math.abs(s));
  const step = Math.round((peak - 2_000) / 2);
  return { request: Math.floor(step / 500), frame: step % 500 };
}
