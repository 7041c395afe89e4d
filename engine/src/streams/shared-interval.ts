/**
 * Housekeeping timers of the same period share one interval: a thousand calls' liveness and limit checks wake the
 * process once per period instead of a thousand times. On a virtual machine every wake-up costs far more than
 * the check it runs, so per-call timers were the largest share of a quiet call's CPU.
 */

interface Group {
  timer: NodeJS.Timeout;
  callbacks: Set<() => void>;
}

const groups = new Map<number, Group>();

/**
 * Calls `callback` every `periodMs` until the returned function is called. Callbacks of one period run in the
 * order they were added; one that throws is reported as a process warning and the others still run.
 */
export function everyShared(periodMs: number, callback: () => void): () => void {
  let group = groups.get(periodMs);
  if (!group) {
    const callbacks = new Set<() => void>();
    const timer = setInterval(() => {
      for (const run of [...callbacks]) {
        try {
          run();
        } catch (error) {
          process.emitWarning(error instanceof Error ? error : new Error(String(error)), 'SharedIntervalCallbackError');
        }
      }
    }, periodMs);
    timer.unref();
    group = { timer, callbacks };
    groups.set(periodMs, group);
  }
  const owned = group;
  owned.callbacks.add(callback);
  return () => {
    owned.callbacks.delete(callback);
    if (owned.callbacks.size === 0 && groups.get(periodMs) === owned) {
      clearInterval(owned.timer);
      groups.delete(periodMs);
    }
  };
}
