/** A prompt the server ships (spec document 2, MCP rule 7): its listing and the messages it expands to. */
import type { GetPromptResult, Prompt as ListedPrompt } from '@modelcontextprotocol/sdk/types.js';

export interface Prompt {
  listing: ListedPrompt;
  /** The messages for the host's model; arguments arrive as strings (MCP prompts take no other type). */
  expand(args: Record<string, string>): GetPromptResult;
}
