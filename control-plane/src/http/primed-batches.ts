/**
 * A streamed export answers 200 with its headers as soon as it starts writing; a query that fails after that can
 * only cut the connection, and the caller holds half a file. Reading the first batch before answering moves the
 * failures that depend on the request (its filters reaching the database) in front of the first byte, where they
 * still answer as errors in the envelope.
 */
export async function primedBatches<T>(batches: AsyncGenerator<T>): Promise<AsyncGenerator<T>> {
  const first = await batches.next();
  return (async function* () {
    if (first.done) return;
    yield first.value;
    yield* batches;
  })();
}
