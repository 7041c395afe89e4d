/**
 * The agent runtime other roles run outside a call: the system prompt of a PROMPT agent, its written reply (the
 * same model rounds and webhook tools as a spoken one) and the knowledge and product search tools — what the control
 * plane's chat conversations use.
 */
export { buildSystemPrompt, type AgentInstructions, type AgentMedium } from './system-prompt.ts';
export { runTextTurn, type HostTool, type TextModel, type TextTurnInput, type TextTurnResult } from './text-turn.ts';
export { MAX_TOOL_ROUNDS, type ToolRecord } from './tool-runner.ts';
export { DEFAULT_TOOL_TIMEOUT_MS, type WebhookTool } from './webhook-tool.ts';
export { searchTools, type CallTool } from './knowledge-tools.ts';
