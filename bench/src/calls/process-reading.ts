/**
 * A child process's own account of its CPU, event loop and memory, read at the start and the end of a window (the
 * parent subtracts the two). process.cpuUsage() counts every thread: the main one, GC helpers, the module loader,
 * and native pools such as ONNX Runtime's.
 */
import { monitorEventLoopDelay, performance as perfHooks } from 'node:perf_hooks';
import type { ProcessReading } from './messages.ts';

/** Event-loop delay histogram resolution, ms. */
const LOOP_DELAY_RESOLUTION_MS = 1;

/** Starts watching the event loop; each call of the returned function reads, and restarts the delay histogram. */
export function processReader(): () => ProcessReading {
  const delay = monitorEventLoopDelay({ resolution: LOOP_DELAY_RESOLUTION_MS });
  delay.enable();
  return () => {
    const cpu = process.cpuUsage();
    const loop = perfHooks.eventLoopUtilization();
    const p99 = delay.count > 0 ? delay.percentile(99) / 1e6 : 0;
    delay.reset();
    return {
      at: performance.timeOrigin + performance.now(),
      monoMicros: Number(process.hrtime.bigint() / 1000n),
      cpuMicros: cpu.user + cpu.system,
      loopActiveMs: loop.active,
      loopIdleMs: loop.idle,
      loopDelayP99Ms: p99,
      rssBytes: process.memoryUsage.rss(),
    };
  };
}
