/**
 * Every tool the server offers today: those of spec document 2 whose REST routes Parley has (agents, calls,
 * sessions, numbers with carrier-a search and purchase, knowledge documents, wallet, billing and top-ups,
 * organisations, help). The campaigns tools are still to come.
 */
import { accountTools } from './account.ts';
import { agentTools } from './agents.ts';
import { callTools } from './calls.ts';
import { helpTools } from './help.ts';
import { knowledgeTools } from './knowledge.ts';
import { numberTools } from './numbers.ts';
import { sessionTools } from './sessions.ts';
import type { Tool } from './tool.ts';

export const TOOLS: readonly Tool[] = [
  ...agentTools,
  ...callTools,
  ...sessionTools,
  ...numberTools,
  ...knowledgeTools,
  ...accountTools,
  ...helpTools,
];
