/** The prompts the server ships (spec document 2, MCP rule 7). */
import { createVoiceAgent } from './create-voice-agent.ts';
import { launchCampaign } from './launch-campaign.ts';
import type { Prompt } from './prompt.ts';

export const PROMPTS: readonly Prompt[] = [createVoiceAgent, launchCampaign];
