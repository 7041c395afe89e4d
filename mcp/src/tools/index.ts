/**
 * Every tool of spec document 2's table, in its order: agents, campaigns, calls, sessions, numbers (with carrier-a
 * search and purchase), knowledge documents, the account (wallet, billing, organisations, top-ups), help.
 */
import { accountTools } from './account.ts';
import { agentTools } from './agents.ts';
import { callTools } from './calls.ts';
import { campaignTools } from './campaigns.ts';
import { helpTools } from './help.ts';
import { knowledgeTools } from './knowledge.ts';
import { numberTools } from './numbers.ts';
import { sessionTools } from './sessions.ts';
import type { Tool } from './tool.ts';

export const TOOLS: readonly Tool[] = [
  ...agentTools,
  ...campaignTools,
  ...callTools,
  ...sessionTools,
  ...numberTools,
  ...knowledgeTools,
  ...accountTools,
  ...helpTools,
];
