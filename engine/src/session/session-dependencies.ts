/** What a call session is given (by the engine role, or a harness) and what it leaves behind. */
import type { PacingClock } from '../audio/pacing-clock.ts';
import type { Bus } from '../bus/index.ts';
import type { CallRecording } from '../storage/call-recording.ts';
import type { MediaTransport } from '../transports/media-transport.ts';
import type { LlmClient } from '../workers/client/llm-client.ts';
import type { SttClient } from '../workers/client/stt-client.ts';
import type { TtsClient } from '../workers/client/tts-client.ts';
import type { TranscriptLine } from './call-events.ts';
import type { FrameClassifier } from './energy-vad.ts';

export interface SessionDependencies {
  bus: Bus;
  transport: MediaTransport;
  /** The process's shared 20 ms clock (processPacingClock()). */
  clock: PacingClock;
  stt: SttClient;
  tts: TtsClient;
  /** Undefined when no language model is configured: the agent greets, then says so. */
  llm: LlmClient | undefined;
  /**
   * The greeting's audio (16 kHz PCM16 pieces), synthesised while the phone rang or taken from the greeting cache;
   * when it fails or is absent the greeting is synthesised now.
   */
  greetingAudio?: Promise<Int16Array[]>;
  /** The call's voice activity detector (the engine role's choice: Silero behind the gate); default the gate alone. */
  voiceActivity?: FrameClassifier;
  /** The call's recording, handed over by the engine role: the session feeds it and, at the end, finishes it. */
  recording?: CallRecording;
  log?: (event: string, detail?: object, level?: 'info' | 'warn' | 'error') => void;
}

export interface CallSummary {
  reason: string;
  outcome: string;
  durationMs: number;
  transcript: TranscriptLine[];
}
