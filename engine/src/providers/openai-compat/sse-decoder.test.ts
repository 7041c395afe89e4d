import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SseDecoder } from './sse-decoder.ts';

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

/** Decodes `body` delivered as the given chunks. */
function decode(chunks: readonly Uint8Array[]): string[] {
  const decoder = new SseDecoder();
  return [...chunks.flatMap((chunk) => decoder.push(chunk)), ...decoder.end()];
}

/** `body` cut at the given byte offsets (sorted, deduplicated, inside the body). */
function cut(body: Uint8Array, offsets: readonly number[]): Uint8Array[] {
  const points = [...new Set(offsets.map((o) => o % (body.length + 1)))].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let start = 0;
  for (const point of points) {
    chunks.push(body.subarray(start, point));
    start = point;
  }
  chunks.push(body.subarray(start));
  return chunks;
}

describe('SseDecoder', () => {
  it('yields the data of each event, one space after the colon removed', () => {
    expect(decode([bytes('data: {"a":1}\n\ndata:{"b":2}\n\ndata: [DONE]\n\n')])).toEqual([
      '{"a":1}',
      '{"b":2}',
      '[DONE]',
    ]);
  });

  it('joins multi-line data with newlines and skips comments and other fields', () => {
    const body = ': keep-alive\nevent: message\nid: 7\nretry: 100\ndata: one\ndata:  two\n\n';
    expect(decode([bytes(body)])).toEqual(['one\n two']);
  });

  it('accepts CRLF and lone CR terminators, including CRLF split across chunks', () => {
    expect(decode([bytes('data: a\r\n\r\ndata: b\r\rdata: c\r'), bytes('\n\r\n')])).toEqual(['a', 'b', 'c']);
  });

  it('keeps a multi-byte character whole when a chunk boundary falls inside it', () => {
    const body = bytes('data: {"t":"héllo 👋 ok"}\n\n');
    const emoji = body.indexOf(0xf0);
    expect(decode([body.subarray(0, emoji + 2), body.subarray(emoji + 2)])).toEqual(['{"t":"héllo 👋 ok"}']);
  });

  it('drops an event the stream ended inside, before its closing blank line', () => {
    expect(decode([bytes('data: whole\n\ndata: {"cut')])).toEqual(['whole']);
    expect(decode([bytes('data: whole\n\ndata: x\n')])).toEqual(['whole']);
  });

  it('gives the same events however the bytes are cut (property)', () => {
    const payload = fc.string({ unit: 'grapheme', maxLength: 20 }).map((s) => s.replace(/[\r\n]/g, ' '));
    const terminator = fc.constantFrom('\n', '\r\n', '\r');
    fc.assert(
      fc.property(
        fc.array(fc.tuple(payload, terminator), { maxLength: 8 }),
        fc.array(fc.nat(), { maxLength: 12 }),
        (events, offsets) => {
          const body = bytes(events.map(([data, eol]) => `data: ${data}${eol}${eol}`).join(''));
          expect(decode(cut(body, offsets))).toEqual(events.map(([data]) => data));
        },
      ),
    );
  });
});
