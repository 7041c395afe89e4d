/**
 * One autocannon run against one URL, with latencies captured at full resolution. autocannon's own histogram
 * records whole milliseconds, too coarse for sub-millisecond medians, so every 2xx response time (a float in ms,
 * the same value autocannon records) is kept here and the percentiles are computed from the raw samples.
 */
import autocannon from 'autocannon';
import { percentile, SampleBuffer } from './percentiles.ts';

export interface LoadOptions {
  url: string;
  /** Default GET. */
  method?: 'GET' | 'POST';
  /** Sent with every request (a JSON-RPC call, say); give its content-type in headers. */
  body?: string;
  headers?: Record<string, string>;
  connections: number;
  durationSeconds: number;
  /** Stops the load early (Ctrl-C); the partial result is returned. */
  signal: AbortSignal;
}

export interface LoadResult {
  /** Mean of the per-second request counts (autocannon's `requests.mean`), all status codes. */
  requestsPerSecond: number;
  /** Latency percentiles of 2xx responses, in milliseconds. */
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Responses with a 2xx status. */
  ok: number;
  non2xx: number;
  /** Connection errors, timeouts included. */
  errors: number;
  timeouts: number;
  durationSeconds: number;
  /**
   * CPU this process (the load generator) used during the run, as a share of one core. Near 1 means the generator,
   * not the server, set the pace.
   */
  generatorCpu: number;
}

/** A response slower than this counts as a timeout (and an error): far above any sane REST latency. */
const REQUEST_TIMEOUT_SECONDS = 10;

export function runLoad(options: LoadOptions): Promise<LoadResult> {
  const samples = new SampleBuffer();
  const cpuBefore = process.cpuUsage();
  const startedAt = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: options.url,
        method: options.method ?? 'GET',
        ...(options.body === undefined ? {} : { body: options.body }),
        headers: options.headers ?? {},
        connections: options.connections,
        duration: options.durationSeconds,
        timeout: REQUEST_TIMEOUT_SECONDS,
      },
      (error: unknown, result: autocannon.Result) => {
        options.signal.removeEventListener('abort', stop);
        if (error) {
          reject(error instanceof Error ? error : new Error(String(error)));
          return;
        }
        const cpu = process.cpuUsage(cpuBefore);
        const wallMicros = Number(process.hrtime.bigint() - startedAt) / 1_000;
        const sorted = samples.sorted();
        resolve({
          requestsPerSecond: result.requests.mean,
          p50Ms: percentile(sorted, 50),
          p99Ms: percentile(sorted, 99),
          maxMs: sorted.length ? sorted[sorted.length - 1]! : Number.NaN,
          ok: result['2xx'],
          non2xx: result.non2xx,
          errors: result.errors,
          timeouts: result.timeouts,
          durationSeconds: result.duration,
          generatorCpu: (cpu.user + cpu.system) / wallMicros,
        });
      },
    );
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      if (statusCode >= 200 && statusCode < 300) samples.push(responseTime);
    });
    const stop = () => instance.stop();
    if (options.signal.aborted) stop();
    else options.signal.addEventListener('abort', stop, { once: true });
  });
}
