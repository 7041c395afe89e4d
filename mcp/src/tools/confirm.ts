/**
 * MCP rule 1: a confirm-gated tool called without `confirm: true` changes nothing and shows what it would do — the
 * target as it stands and the change — so the host can put the decision in front of its user.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { valueResult } from './results.ts';

export interface Preview {
  /** What would happen, in words ("Delete the agent"). */
  action: string;
  /** The target as it is now. */
  target: unknown;
  /** What would change, and what follows from it. */
  effects: readonly string[];
}

export function previewResult(tool: string, preview: Preview): CallToolResult {
  return valueResult({
    dryRun: true,
    action: preview.action,
    target: preview.target,
    effects: preview.effects,
    next: `Nothing was changed. To go ahead, call ${tool} again with the same arguments and confirm: true — after your user has approved.`,
  });
}
