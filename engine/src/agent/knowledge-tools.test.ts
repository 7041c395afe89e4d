import { describe, expect, it } from 'vitest';
import { MemoryBus } from '../bus/index.ts';
import { kbSearchCodecs, queues, subjects, type CallSpec, type KbSearchReply } from '../protocol/index.ts';
import { listedIds, searchTools } from './knowledge-tools.ts';

const spec = (customVariables: Record<string, unknown>, variables: Record<string, unknown> = {}) =>
  ({ callId: 'call1', organisationId: 'org1', variables, agent: { customVariables } }) as unknown as CallSpec;

function answering(bus: MemoryBus, reply: KbSearchReply) {
  const subscription = bus.subscribe(subjects.kbSearch(), { queue: queues.controlPlane });
  void (async () => {
    for await (const message of subscription) message.respond(kbSearchCodecs.reply.encode(reply));
  })();
  return subscription;
}

describe('search tools', () => {
  it('exist only for the sources the variables list, in any of the accepted spellings', () => {
    const bus = new MemoryBus();
    expect(searchTools(spec({}), bus)).toEqual([]);
    expect(searchTools(spec({ knowledge_base_ids: [] }), bus)).toEqual([]);
    const names = (s: CallSpec) => searchTools(s, bus).map((t) => t.definition.name);
    expect(names(spec({ knowledge_base_id: 'kb1' }))).toEqual(['knowledge_search']);
    expect(names(spec({ catalogue_ids: ['c1'] }))).toEqual(['product_search']);
    expect(names(spec({}, { knowledge_base_ids: 'a, b', catalogue_id: 'c' }))).toEqual([
      'knowledge_search',
      'product_search',
    ]);
    expect(
      listedIds({ knowledge_base_ids: 'a, b', knowledge_base_id: ['b', 'c', 7] }, [
        'knowledge_base_ids',
        'knowledge_base_id',
      ]),
    ).toEqual(['a', 'b', 'c']);
  });

  it('give the model products as JSON, and a sentence it can say when the search fails or nobody answers', async () => {
    const bus = new MemoryBus();
    const [products] = searchTools(spec({ catalogue_ids: ['c1'] }), bus);
    const signal = new AbortController().signal;
    expect(await products!.run('{"query":"muffin"}', signal)).toMatchObject({
      ok: false,
      content: 'The search is not available right now; nothing was found.',
    });
    const product = {
      product_id: 'B-2',
      name: 'Blueberry muffin',
      category_path: [],
      price: 2.2,
      currency: 'GBP',
      in_stock: false,
      short_description: '',
    };
    const subscription = answering(bus, { ok: true, passages: [], products: [product] });
    const found = await products!.run('{"query":"muffin"}', signal);
    expect(found.ok).toBe(true);
    expect(JSON.parse(found.content)).toEqual({ results: [product] });
    expect(await products!.run('{"query":', signal)).toMatchObject({ ok: false });
    expect(await products!.run('{}', signal)).toMatchObject({ ok: false, content: 'The search needs a query.' });
    subscription.unsubscribe();
    answering(bus, { ok: false, code: 'timeout', message: 'The search took too long.', retryable: true });
    expect(await products!.run('{"query":"muffin"}', signal)).toMatchObject({
      ok: false,
      content: 'The search failed: The search took too long.',
    });
  });
});
