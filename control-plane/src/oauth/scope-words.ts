/** What each scope lets a connected AI host do, in the plain words of the consent page. */
import type { Scope } from '../auth/scopes.ts';

export const SCOPE_WORDS: Record<Scope, string> = {
  'agents:read': 'See your agents and the voices they can use',
  'agents:write': 'Create, change and delete agents, and their website chat tokens',
  'campaigns:read': 'See your campaigns, their contacts and results',
  'campaigns:write': 'Create, change and delete campaigns and add contacts',
  'campaigns:control': 'Start, pause and finish campaigns (they place real calls)',
  'calls:read': 'Read call history, transcripts and results',
  'calls:create': 'Place phone calls (they cost money)',
  'recordings:read': 'Listen to call recordings',
  'numbers:read': 'See your phone numbers and search for new ones',
  'numbers:write': 'Buy phone numbers and assign them to agents (this costs money)',
  'knowledge:read': 'Read your knowledge documents and catalogues',
  'knowledge:write': 'Add and delete knowledge documents and catalogues',
  'wallet:read': 'See your wallet balance and transactions',
  'wallet:write': 'Prepare top-ups of your wallet (you pay on a checkout page)',
  'billing:read': 'See your plan, billing status and usage',
  'org:read': 'See your organisation, its members and invitations',
  'org:write': 'Change your organisation and its members',
  'sip:read': 'See your SIP configurations',
  'sip:write': 'Add and change SIP trunks and configurations',
  'analytics:read': 'Analyse calls on demand',
  'ai:enhance': "Rewrite your agents' texts with AI",
  'webhooks:read': 'Read the campaign dialler status',
  'widget:bootstrap': 'Start website chat sessions',
};
