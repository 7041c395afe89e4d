/**
 * Builds complete tool calls from the fragments a streamed chat completion sends in `delta.tool_calls`. OpenAI
 * sends the id and name in the first fragment of each call and the JSON arguments in pieces after it, all keyed by
 * `index`; compatible servers differ in small ways this class absorbs:
 * - the name itself may arrive in pieces (it is concatenated like the arguments);
 * - the id may be repeated on every fragment (it is kept, not concatenated);
 * - Ollama reuses index 0 for each of several parallel calls, told apart only by a new id;
 * - some servers omit the id altogether (we make one, so tool results can still refer to the call);
 * - some omit `index` (a fragment with a new id starts a call, one without continues the last).
 */
import { randomBytes } from 'node:crypto';
import type { ToolCall } from '../llm-provider.ts';

/** One element of `choices[0].delta.tool_calls`, as loosely typed as servers send it. */
export interface ToolCallFragment {
  index?: number;
  id?: string;
  type?: string;
  function?: { name?: string; arguments?: string };
}

interface Draft {
  id: string | undefined;
  name: string;
  args: string[];
}

export class ToolCallAssembler {
  /** Calls being built, by the index the server gave them. */
  readonly #drafts = new Map<number, Draft>();
  /** Calls already complete (superseded at a reused index), in order. */
  readonly #completed: Draft[] = [];
  #lastIndex = -1;

  /** True once any fragment arrived. */
  get started(): boolean {
    return this.#drafts.size > 0 || this.#completed.length > 0;
  }

  add(fragment: ToolCallFragment): void {
    const id = typeof fragment.id === 'string' && fragment.id !== '' ? fragment.id : undefined;
    const index = this.#indexOf(fragment, id);
    this.#lastIndex = index;
    let draft = this.#drafts.get(index);
    if (draft !== undefined && id !== undefined && draft.id !== undefined && id !== draft.id && draft.name !== '') {
      this.#completed.push(draft);
      draft = undefined;
    }
    if (draft === undefined) {
      draft = { id, name: '', args: [] };
      this.#drafts.set(index, draft);
    }
    draft.id ??= id;
    const name = fragment.function?.name;
    if (typeof name === 'string') draft.name += name;
    const args = fragment.function?.arguments;
    if (typeof args === 'string') draft.args.push(args);
  }

  /**
   * Every call, in the order the model wrote them.
   * @returns the calls, or the index of a call that never got a name (a malformed stream)
   */
  finish(): { calls: ToolCall[] } | { unnamedIndex: number } {
    const indexed = [...this.#drafts.entries()].sort(([a], [b]) => a - b);
    const drafts = [...this.#completed, ...indexed.map(([, draft]) => draft)];
    const calls: ToolCall[] = [];
    for (const [position, draft] of drafts.entries()) {
      if (draft.name === '') return { unnamedIndex: position };
      calls.push({
        id: draft.id ?? `call_${randomBytes(12).toString('hex')}`,
        name: draft.name,
        arguments: draft.args.join(''),
      });
    }
    return { calls };
  }

  #indexOf(fragment: ToolCallFragment, id: string | undefined): number {
    if (typeof fragment.index === 'number' && Number.isInteger(fragment.index) && fragment.index >= 0) {
      return fragment.index;
    }
    const last = this.#drafts.get(this.#lastIndex);
    if (last === undefined || (id !== undefined && last.id !== undefined && id !== last.id)) return this.#lastIndex + 1;
    return this.#lastIndex;
  }
}
