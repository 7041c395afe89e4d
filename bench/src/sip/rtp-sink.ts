/**
 * The SIP bench's RTP sink: a forked process (rtp-sink-process.ts) that every call's outbound RTP is sent to. It
 * lives outside the bench's process on purpose: a sink on the gateway's own event loop timestamps packets when that
 * loop reads them, after whatever else the loop was doing (every caller's inbound RTP, the stand-ins), and so
 * measures the bench, not what a far end sees.
 */
import { fileURLToPath } from 'node:url';
import { ChildLink } from '../calls/child-link.ts';
import type { FromSink, ToSink } from './sink-messages.ts';

const ENTRY = fileURLToPath(new URL('./rtp-sink-process.ts', import.meta.url));
/** Forking loads TypeScript through tsx: seconds on a cold, shared two-core machine. */
const START_TIMEOUT_MS = 60_000;
/** Sorting a run's lateness samples (200,000 at the defaults) takes well under this. */
const REPORT_TIMEOUT_MS = 30_000;

export type SinkReport = Omit<Extract<FromSink, { type: 'report' }>, 'type'>;

export class RtpSink {
  readonly #link: ChildLink<ToSink, FromSink>;
  readonly port: number;
  readonly receiveBufferBytes: number;

  private constructor(link: ChildLink<ToSink, FromSink>, port: number, receiveBufferBytes: number) {
    this.#link = link;
    this.port = port;
    this.receiveBufferBytes = receiveBufferBytes;
  }

  static async start(): Promise<RtpSink> {
    const link = new ChildLink<ToSink, FromSink>('RTP sink', ENTRY);
    try {
      const bound = await link.request({ type: 'bind' }, 'bound', START_TIMEOUT_MS);
      return new RtpSink(link, bound.port, bound.receiveBufferBytes);
    } catch (error) {
      await link.close({ type: 'quit' });
      throw error;
    }
  }

  /** Lateness over every packet received so far; packets later than `overMs` counted apart. */
  async report(overMs: number): Promise<SinkReport> {
    const { type: _, ...report } = await this.#link.request({ type: 'report', overMs }, 'report', REPORT_TIMEOUT_MS);
    return report;
  }

  close(): Promise<void> {
    return this.#link.close({ type: 'quit' });
  }
}
