/**
 * The prompts the server ships. launch_campaign (spec document 2, MCP rule 7) joins when the campaigns API exists:
 * a prompt that steers a host towards tools this server does not offer would only produce refusals.
 */
import { createVoiceAgent } from './create-voice-agent.ts';
import type { Prompt } from './prompt.ts';

export const PROMPTS: readonly Prompt[] = [createVoiceAgent];
