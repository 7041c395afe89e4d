/**
 * Server-sent events (WHATWG HTML §9.2.6) from raw body chunks. Network chunks split anywhere — inside a line,
 * between `\r` and `\n`, inside a multi-byte UTF-8 character — so bytes go through a streaming TextDecoder and
 * lines are only cut on complete terminators. Only `data` fields matter for chat completions; comments
 * (`: keep-alive`), `event`, `id` and `retry` are read past. As the standard says, an event still unterminated at
 * the end of the stream is discarded: a body cut off mid-event must not look like a complete one.
 */

const LINE_TERMINATOR = /\r\n|\r|\n/g;

export class SseDecoder {
  readonly #text = new TextDecoder('utf-8');
  /** The current line's text so far (no terminator seen yet). */
  #line = '';
  /** The previous chunk ended with `\r`: a `\n` opening the next one belongs to that terminator. */
  #afterCr = false;
  /** `data` field values of the event being read. */
  #data: string[] = [];

  /**
   * Feeds one body chunk.
   * @returns the data of every event this chunk completed (each event's `data` lines joined with `\n`)
   */
  push(bytes: Uint8Array): string[] {
    const events: string[] = [];
    this.#feed(this.#text.decode(bytes, { stream: true }), events);
    return events;
  }

  /** The body ended: completes the last line; an event without its closing blank line is dropped. */
  end(): string[] {
    const events: string[] = [];
    this.#feed(this.#text.decode(), events);
    if (this.#line !== '') {
      this.#takeLine(this.#line, events);
      this.#line = '';
    }
    this.#data = [];
    return events;
  }

  #feed(text: string, events: string[]): void {
    if (text === '') return;
    let start = 0;
    if (this.#afterCr && text.startsWith('\n')) start = 1;
    this.#afterCr = false;
    LINE_TERMINATOR.lastIndex = start;
    for (let match = LINE_TERMINATOR.exec(text); match !== null; match = LINE_TERMINATOR.exec(text)) {
      // A lone `\r` at the very end may be the first half of `\r\n` split across chunks.
      if (match[0] === '\r' && match.index === text.length - 1) this.#afterCr = true;
      this.#takeLine(this.#line + text.slice(start, match.index), events);
      this.#line = '';
      start = match.index + match[0].length;
    }
    this.#line += text.slice(start);
  }

  #takeLine(line: string, events: string[]): void {
    if (line === '') {
      if (this.#data.length > 0) events.push(this.#data.join('\n'));
      this.#data = [];
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    if (field !== 'data') return;
    const value = colon < 0 ? '' : line.slice(colon + 1);
    this.#data.push(value.startsWith(' ') ? value.slice(1) : value);
  }
}
