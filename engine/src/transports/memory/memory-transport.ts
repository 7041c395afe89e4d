/**
 * A transport in memory, for tests and the bench: the "caller" side pushes audio frames and DTMF as a phone would
 * and reads what the agent says. Marks are reported when the frames before them have been sent, which is when
 * a far end with no buffer would have played them.
 */
import { Channel } from '../../streams/channel.ts';
import type { MediaTransport, TransportEvent } from '../media-transport.ts';

/** Caller events held unread: 10 s of frames; a session this far behind has bigger problems. */
const INBOUND_CAPACITY = 500;

export interface MemoryCaller {
  /** Sends one 20 ms frame of 16 kHz audio to the agent. */
  speak(frame: Int16Array): void;
  press(digit: string): void;
  answeredBy(who: 'human' | 'machine'): void;
  hangup(reason?: string): void;
  /** Every frame the agent sent, in order. */
  readonly heard: Int16Array[];
  /** How many times the agent cleared the far end's buffer. */
  readonly clears: number;
  /** Frames the caller had spoken, and agent frames sent, when each clear came: where in the call it fell. */
  readonly clearLog: readonly { spoken: number; heard: number }[];
  /** Frames the caller has spoken. */
  readonly spoken: number;
  /** Resolves with the reason when the agent hangs up. */
  readonly hungUp: Promise<string>;
  /** Called with each agent frame as it is sent. */
  onAudio?: (frame: Int16Array) => void;
}

export function memoryTransport(options: { echoes?: boolean } = {}): {
  transport: MediaTransport;
  caller: MemoryCaller;
} {
  const inbound = new Channel<TransportEvent>(INBOUND_CAPACITY, 'drop-oldest');
  const heard: Int16Array[] = [];
  const clearLog: { spoken: number; heard: number }[] = [];
  let spoken = 0;
  let ended = false;
  let resolveHungUp!: (reason: string) => void;
  const hungUp = new Promise<string>((resolve) => {
    resolveHungUp = resolve;
  });

  const caller: MemoryCaller = {
    speak: (frame) => {
      spoken += 1;
      inbound.push({ type: 'audio', samples: frame });
    },
    press: (digit) => inbound.push({ type: 'dtmf', digit }),
    answeredBy: (who) => inbound.push({ type: 'answered_by', who }),
    hangup: (reason = 'caller hung up') => {
      inbound.push({ type: 'hangup', reason });
      inbound.end();
    },
    heard,
    get clears() {
      return clearLog.length;
    },
    clearLog,
    get spoken() {
      return spoken;
    },
    hungUp,
  };

  const transport: MediaTransport = {
    events: inbound,
    echoes: options.echoes ?? false,
    send(samples) {
      if (ended) return;
      heard.push(samples);
      caller.onAudio?.(samples);
    },
    mark(name) {
      if (!ended) inbound.push({ type: 'mark', name });
    },
    clear() {
      clearLog.push({ spoken, heard: heard.length });
    },
    hangup(reason) {
      if (ended) return;
      ended = true;
      resolveHungUp(reason);
      inbound.end();
    },
  };
  return { transport, caller };
}
