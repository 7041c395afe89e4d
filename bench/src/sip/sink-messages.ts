/** What the bench and its RTP sink process (rtp-sink-process.ts) say to each other over the fork's IPC channel. */
import type { LatenessSummary } from './outbound-lateness.ts';

export type ToSink = { type: 'bind' } | { type: 'report'; overMs: number } | { type: 'quit' };

export type FromSink =
  | { type: 'bound'; port: number; receiveBufferBytes: number }
  | {
      type: 'report';
      lateness: LatenessSummary;
      /** Datagrams the kernel dropped at the sink's socket (a full receive buffer); undefined off Linux. */
      dropped: number | undefined;
      /** CPU the sink process used, µs (user + system). */
      cpuMicros: number;
    }
  | { type: 'failed'; message: string };
