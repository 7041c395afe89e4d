import { describe, expect, it } from 'vitest';
import { primedBatches } from './primed-batches.ts';

async function collect<T>(batches: AsyncGenerator<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const batch of batches) out.push(batch);
  return out;
}

describe('primedBatches', () => {
  it('fails before answering when the first batch fails, so the route can still refuse in the envelope', async () => {
    async function* failing(): AsyncGenerator<number[]> {
      throw new Error('invalid byte sequence for encoding "UTF8": 0x00');
    }
    await expect(primedBatches(failing())).rejects.toThrow('invalid byte sequence');
  });

  it('hands on every batch, the first included, in order; and nothing for an empty export', async () => {
    async function* three() {
      yield [1];
      yield [2];
      yield [3];
    }
    expect(await collect(await primedBatches(three()))).toEqual([[1], [2], [3]]);
    async function* none(): AsyncGenerator<number[]> {}
    expect(await collect(await primedBatches(none()))).toEqual([]);
  });
});
