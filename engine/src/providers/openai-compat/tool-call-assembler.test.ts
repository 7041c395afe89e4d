import { describe, expect, it } from 'vitest';
import { ToolCallAssembler, type ToolCallFragment } from './tool-call-assembler.ts';

function assemble(fragments: ToolCallFragment[]) {
  const assembler = new ToolCallAssembler();
  for (const fragment of fragments) assembler.add(fragment);
  return assembler.finish();
}

describe('ToolCallAssembler', () => {
  it('joins name and argument pieces by index, keeping the id from the first fragment', () => {
    expect(
      assemble([
        { index: 0, id: 'call_a', type: 'function', function: { name: 'look', arguments: '' } },
        { index: 0, function: { name: 'up_order' } },
        { index: 0, function: { arguments: '{"order' } },
        { index: 0, function: { arguments: '":"A-1"}' } },
      ]),
    ).toEqual({ calls: [{ id: 'call_a', name: 'lookup_order', arguments: '{"order":"A-1"}' }] });
  });

  it('keeps parallel calls apart by index and orders them by index', () => {
    const result = assemble([
      { index: 1, id: 'call_2', function: { name: 'b', arguments: '{}' } },
      { index: 0, id: 'call_1', function: { name: 'a', arguments: '{"x":' } },
      { index: 0, function: { arguments: '1}' } },
    ]);
    expect(result).toEqual({
      calls: [
        { id: 'call_1', name: 'a', arguments: '{"x":1}' },
        { id: 'call_2', name: 'b', arguments: '{}' },
      ],
    });
  });

  it('does not concatenate an id that a server repeats on every fragment', () => {
    expect(
      assemble([
        { index: 0, id: 'call_1', function: { name: 'a', arguments: '{' } },
        { index: 0, id: 'call_1', function: { arguments: '}' } },
      ]),
    ).toEqual({ calls: [{ id: 'call_1', name: 'a', arguments: '{}' }] });
  });

  it('starts a new call when a new id arrives at a reused index (Ollama)', () => {
    expect(
      assemble([
        { index: 0, id: 'call_1', function: { name: 'a', arguments: '{}' } },
        { index: 0, id: 'call_2', function: { name: 'b', arguments: '{"y":2}' } },
      ]),
    ).toEqual({
      calls: [
        { id: 'call_1', name: 'a', arguments: '{}' },
        { id: 'call_2', name: 'b', arguments: '{"y":2}' },
      ],
    });
  });

  it('numbers calls without an index by their ids and invents missing ids', () => {
    const result = assemble([
      { id: 'call_1', function: { name: 'a' } },
      { function: { arguments: '{}' } },
      { id: 'call_2', function: { name: 'b', arguments: '{}' } },
      { index: 5, function: { name: 'c', arguments: '{}' } },
    ]);
    expect('calls' in result && result.calls.map((c) => [c.name, c.arguments])).toEqual([
      ['a', '{}'],
      ['b', '{}'],
      ['c', '{}'],
    ]);
    expect('calls' in result && result.calls[2]?.id).toMatch(/^call_[0-9a-f]{24}$/);
  });

  it('reports a call that never got a name', () => {
    expect(assemble([{ index: 0, id: 'x', function: { arguments: '{}' } }])).toEqual({ unnamedIndex: 0 });
  });
});
