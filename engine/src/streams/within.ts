/**
 * Waiting for something, but not for ever: the drain's waits (docs/architecture.md §18) are each bounded by a
 * deadline, past which the caller does what it must without the result.
 */

/**
 * Waits for `work` for at most `ms`: true when it settled in time (fulfilled or rejected — the caller only needs
 * to know whether it may go on), false at the deadline. The timer is cleared either way.
 */
export async function settledWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([
      work.then(
        () => true,
        () => true,
      ),
      deadline,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
