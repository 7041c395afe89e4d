/**
 * A call's `actions` (spec document 1: `tracking` string, `items` array): the tool calls the agent made and the keys
 * the caller pressed, in call order, and a one-line summary of them that the results export shows as "Actions".
 */
import type { ActionItem, CallActions } from './call-records.ts';

/** Items kept per call: a call that runs tools in a loop must not grow its record without bound. */
export const MAX_ACTION_ITEMS = 500;

/** The actions with one more item, in call order (events may arrive out of order). */
export function withAction(actions: CallActions | null, item: ActionItem): CallActions {
  const items = [...(actions?.items ?? []), item].sort((a, b) => a.atMs - b.atMs).slice(0, MAX_ACTION_ITEMS);
  return { tracking: tracking(items), items };
}

/** "2 tool calls (1 failed): lookup_order, book_slot; keys pressed: 1 2" — empty when nothing happened. */
export function tracking(items: readonly ActionItem[]): string {
  const tools = items.filter((i): i is Extract<ActionItem, { type: 'tool_call' }> => i.type === 'tool_call');
  const keys = items.filter((i): i is Extract<ActionItem, { type: 'dtmf' }> => i.type === 'dtmf');
  const parts: string[] = [];
  if (tools.length) {
    const failed = tools.filter((t) => !t.ok).length;
    const names = [...new Set(tools.map((t) => t.name))].join(', ');
    parts.push(
      `${tools.length} tool call${tools.length === 1 ? '' : 's'}${failed ? ` (${failed} failed)` : ''}: ${names}`,
    );
  }
  if (keys.length) parts.push(`keys pressed: ${keys.map((k) => k.digit).join(' ')}`);
  return parts.join('; ');
}
