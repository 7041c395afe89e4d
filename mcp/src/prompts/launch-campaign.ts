/**
 * launch_campaign (spec document 2, MCP rule 7): reviews a campaign with the user and starts it only after their
 * explicit approval — the dialler calls real people and every call is billed.
 */
import type { Prompt } from './prompt.ts';

export const launchCampaign: Prompt = {
  listing: {
    name: 'launch_campaign',
    title: 'Review and launch a campaign',
    description:
      'Check a campaign with the user (agent, number, window, dates, contacts, balance) and start it only once they approve.',
    arguments: [
      {
        name: 'campaign_id',
        description: 'The campaign to launch; omit to choose one from campaigns_list',
        required: false,
      },
    ],
  },
  expand(args) {
    const which = args.campaign_id
      ? `the campaign ${args.campaign_id}`
      : 'a campaign: list them with campaigns_list and ask me which one';
    const text = [
      `Help me launch ${which} on Parley with the Parley MCP tools. Go step by step, and never start it without my explicit "yes":`,
      '1. Read it with campaigns_get: show me its agent, caller number, daily window and time zone, start and end dates, retries and cooldown.',
      '2. Read the agent with agents_get: is it active, and does its greeting and task fit these contacts?',
      '3. Check the contacts with campaigns_contacts_list (the total, and a few of them). If there are none, offer campaigns_contacts_add.',
      '4. Check the money with account_balance: say whether the wallet can carry these calls; if it cannot, stop here and suggest account_topup.',
      '5. Summarise what will happen — who is called, when, how often retried — and ask me to approve.',
      '6. Only after I say yes: call campaigns_start without confirm, show me its preview, and call it again with confirm: true.',
      '7. Afterwards, show campaigns_stats, and remind me that campaigns_pause stops it at any time.',
    ].join('\n');
    return {
      description: 'Review a campaign and launch it with approval',
      messages: [{ role: 'user', content: { type: 'text', text } }],
    };
  },
};
