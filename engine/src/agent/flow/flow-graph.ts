/**
 * The flow as a graph of step keys. It reads steps leniently (any object with a known `kind` and string
 * references), so the validator can report broken references and unreachable steps in the same answer as the
 * schema errors of a flow that is still being written.
 */

/** A reference from one step to another: where it is written (a JSON pointer) and the key it names. */
export interface StepRef {
  from: string;
  path: string;
  to: string;
}

/** Where each kind names other steps. */
const REF_FIELDS: Record<string, readonly string[]> = {
  say: ['next'],
  ask: ['next', 'fallback'],
  branch: ['default'],
  tool: ['next', 'onFailure'],
  knowledge: ['next'],
  handover: ['onFailure'],
  end: [],
};

/** Steps that wait for the caller or for the outside world; only these can break a loop on their own. */
const WAITING_KINDS = new Set(['ask', 'tool', 'knowledge', 'handover', 'end']);

export const escapePointer = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');
export const pointer = (...segments: (string | number)[]) =>
  segments.map((s) => `/${escapePointer(String(s))}`).join('');

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export function stepKind(step: unknown): string | undefined {
  return isRecord(step) && typeof step.kind === 'string' && step.kind in REF_FIELDS ? step.kind : undefined;
}

export function stepRefs(key: string, step: unknown): StepRef[] {
  const kind = stepKind(step);
  if (!kind || !isRecord(step)) return [];
  // In the order a reader follows them: a branch's conditions before its default, the happy path first.
  const refs: StepRef[] = [];
  if (kind === 'branch' && Array.isArray(step.conditions)) {
    step.conditions.forEach((condition, i) => {
      if (isRecord(condition) && typeof condition.next === 'string') {
        refs.push({ from: key, path: pointer('steps', key, 'conditions', i, 'next'), to: condition.next });
      }
    });
  }
  for (const field of REF_FIELDS[kind]!) {
    const to = step[field];
    if (typeof to === 'string') refs.push({ from: key, path: pointer('steps', key, field), to });
  }
  return refs;
}

/** Whether a step decides and moves on without any input: a say, or a branch on values only. */
export function isQuietStep(step: unknown): boolean {
  const kind = stepKind(step);
  if (!kind || WAITING_KINDS.has(kind)) return false;
  if (kind === 'say') return true;
  const conditions = isRecord(step) && Array.isArray(step.conditions) ? step.conditions : [];
  return conditions.every((condition) => isRecord(condition) && condition.kind === 'value');
}

export class FlowGraph {
  readonly keys: readonly string[];
  readonly #outgoing = new Map<string, string[]>();
  readonly #incoming = new Map<string, string[]>();
  readonly refs: readonly StepRef[];

  constructor(readonly steps: Readonly<Record<string, unknown>>) {
    this.keys = Object.keys(steps);
    const refs: StepRef[] = [];
    for (const key of this.keys) {
      this.#outgoing.set(key, []);
      this.#incoming.set(key, []);
    }
    for (const key of this.keys) {
      for (const ref of stepRefs(key, steps[key])) {
        refs.push(ref);
        if (!this.#outgoing.has(ref.to)) continue;
        this.#outgoing.get(key)!.push(ref.to);
        this.#incoming.get(ref.to)!.push(key);
      }
    }
    this.refs = refs;
  }

  has(key: string): boolean {
    return this.#outgoing.has(key);
  }

  /** Steps reachable from `starts`, in breadth-first order (the order a reader of the flow meets them). */
  reachable(starts: Iterable<string>, direction: 'forward' | 'backward' = 'forward'): string[] {
    const edges = direction === 'forward' ? this.#outgoing : this.#incoming;
    const seen = new Set<string>();
    const queue = [...starts].filter((key) => this.has(key));
    for (const key of queue) seen.add(key);
    for (let i = 0; i < queue.length; i++) {
      for (const next of edges.get(queue[i]!)!) {
        if (seen.has(next)) continue;
        seen.add(next);
        queue.push(next);
      }
    }
    return queue;
  }

  /** Steps reachable from `start` depth first, each way on followed to its end before the next: the call as read. */
  depthFirst(start: string): string[] {
    const order: string[] = [];
    const seen = new Set<string>();
    const stack = this.has(start) ? [start] : [];
    while (stack.length) {
      const key = stack.pop()!;
      if (seen.has(key)) continue;
      seen.add(key);
      order.push(key);
      stack.push(...[...this.#outgoing.get(key)!].reverse().filter((next) => !seen.has(next)));
    }
    return order;
  }

  /**
   * Loops made only of quiet steps (say, branches on values): nothing in them waits or changes a value, so once
   * entered they go round for ever. Each loop is listed once, its steps in flow order (Tarjan's components).
   */
  quietLoops(): string[][] {
    const quiet = new Set(this.keys.filter((key) => isQuietStep(this.steps[key])));
    const index = new Map<string, number>();
    const low = new Map<string, number>();
    const stack: string[] = [];
    const onStack = new Set<string>();
    const loops: string[][] = [];
    let counter = 0;
    const visit = (key: string): void => {
      index.set(key, counter);
      low.set(key, counter++);
      stack.push(key);
      onStack.add(key);
      for (const next of this.#outgoing.get(key)!) {
        if (!quiet.has(next)) continue;
        if (!index.has(next)) {
          visit(next);
          low.set(key, Math.min(low.get(key)!, low.get(next)!));
        } else if (onStack.has(next)) {
          low.set(key, Math.min(low.get(key)!, index.get(next)!));
        }
      }
      if (low.get(key) !== index.get(key)) return;
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== key);
      const selfLoop = component.length === 1 && this.#outgoing.get(key)!.includes(key);
      if (component.length > 1 || selfLoop) loops.push(this.keys.filter((k) => component.includes(k)));
    };
    for (const key of quiet) if (!index.has(key)) visit(key);
    return loops;
  }
}
