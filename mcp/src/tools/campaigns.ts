/**
 * The campaigns tools (spec document 2): list, read, create (a call window of 09:00 to 17:00 unless told), contacts
 * listed and added (up to 500 at once, duplicates skipped, nothing removed), start and complete (confirm-gated: the
 * dialler calls real people, billed), pause, and statistics.
 */
import { z } from 'zod';
import { previewResult } from './confirm.ts';
import { DEFAULT_LIST_LIMIT, listResult, valueResult } from './results.ts';
import { confirmArgument, defineTool, listArguments, orgArgument, pageArgument, type Tool } from './tool.ts';
import type { ToolContext } from './tool-context.ts';

const SERVICE = 'Campaigns';
/** The call window a campaign gets when none is given (spec document 2, campaigns_create). */
const DEFAULT_WINDOW = { start: '09:00', end: '17:00' } as const;
/** Spec document 2: campaigns_contacts_add appends at most 500 contacts a call. */
const MAX_CONTACTS_PER_ADD = 500;

interface Campaign {
  id: string;
  name: string;
  status: string;
  voiceAgent?: { id: string; name: string } | null;
  callStartTime: string;
  callEndTime: string;
  timezone: string;
  totalContacts: number;
  [field: string]: unknown;
}

const campaignId = { campaign_id: z.string().min(1).max(64).describe('The campaign id') };
const hhmm = z.string().regex(/^([01][0-9]|2[0-3]):[0-5][0-9]$/, 'HH:MM');

const path = (id: string, rest = '') => `/campaigns/${encodeURIComponent(id)}${rest}`;

function getCampaign(context: ToolContext, id: string): Promise<Campaign> {
  return context.call<Campaign>(SERVICE, { method: 'GET', path: path(id) });
}

function summary(campaign: Campaign) {
  return {
    id: campaign.id,
    name: campaign.name,
    status: campaign.status,
    agent: campaign.voiceAgent ?? null,
    window: `${campaign.callStartTime}–${campaign.callEndTime} ${campaign.timezone}`,
    totalContacts: campaign.totalContacts,
  };
}

const campaignsList = defineTool({
  name: 'campaigns_list',
  title: 'List campaigns',
  description: "The organisation's outbound calling campaigns, newest first, with their status and counts.",
  toolClass: 'read',
  scopes: ['campaigns:read'],
  input: { ...orgArgument, ...pageArgument, ...listArguments },
  async run(args, context) {
    const limit = args.limit ?? DEFAULT_LIST_LIMIT;
    const page = args.page ?? 1;
    const found = await context.call<{ campaigns: unknown[]; total: number }>(SERVICE, {
      method: 'GET',
      path: `/campaigns/organisations/${encodeURIComponent(context.organisation(args.org_id))}`,
      query: { page, limit },
    });
    return listResult({ items: found.campaigns, total: found.total, page, limit }, args.fields);
  },
});

const campaignsGet = defineTool({
  name: 'campaigns_get',
  title: 'Read a campaign',
  description: 'A campaign: its settings (agent, number, window, dates, retries) and where it stands (status, counts).',
  toolClass: 'read',
  scopes: ['campaigns:read'],
  input: { ...campaignId },
  async run(args, context) {
    return valueResult(await getCampaign(context, args.campaign_id));
  },
});

const campaignsCreate = defineTool({
  name: 'campaigns_create',
  title: 'Create a campaign',
  description:
    'Create an outbound campaign (DRAFT) for a voice agent. It calls only inside its daily window, 09:00 to 17:00 in ' +
    'its time zone unless told otherwise. Add contacts with campaigns_contacts_add, then start it with campaigns_start.',
  toolClass: 'write',
  scopes: ['campaigns:write'],
  input: {
    name: z.string().min(1).max(255).describe('The campaign name'),
    voice_agent_id: z.string().min(1).max(64).describe('The VOICE agent that makes the calls'),
    description: z.string().max(2000).optional(),
    call_start_time: hhmm.optional().describe('Daily window start, HH:MM (default 09:00)'),
    call_end_time: hhmm.optional().describe('Daily window end, HH:MM, after the start (default 17:00)'),
    timezone: z.string().max(64).optional().describe('IANA time zone of the window, e.g. Europe/London'),
    start_date: z.string().max(40).optional().describe('First day to call, ISO date'),
    end_date: z.string().max(40).optional().describe('Last day to call, ISO date'),
    dialing_number: z.string().max(32).optional().describe("Caller number, E.164 (default the agent's own)"),
    target_country_code: z.string().max(5).optional().describe('Country code for numbers without one (default +1)'),
    retry_count: z.number().int().min(0).max(10).optional().describe('Tries again after no answer, busy or failure'),
    cooldown_seconds: z.number().int().min(0).optional().describe('Wait before trying a contact again, s'),
    ...orgArgument,
  },
  async run(args, context) {
    const body: Record<string, unknown> = {
      organisationId: context.organisation(args.org_id),
      name: args.name,
      voiceAgentId: args.voice_agent_id,
      callStartTime: args.call_start_time ?? DEFAULT_WINDOW.start,
      callEndTime: args.call_end_time ?? DEFAULT_WINDOW.end,
    };
    const optional: Record<string, unknown> = {
      description: args.description,
      timezone: args.timezone,
      startDate: args.start_date,
      endDate: args.end_date,
      dialingNumber: args.dialing_number,
      targetCountryCode: args.target_country_code,
      retryCount: args.retry_count,
      cooldownSeconds: args.cooldown_seconds,
    };
    for (const [field, value] of Object.entries(optional)) if (value !== undefined) body[field] = value;
    return valueResult(await context.call(SERVICE, { method: 'POST', path: '/campaigns', body }));
  },
});

const campaignsContactsList = defineTool({
  name: 'campaigns_contacts_list',
  title: "List a campaign's contacts",
  description: "A campaign's contacts with their call status, and the exact total.",
  toolClass: 'read',
  scopes: ['campaigns:read'],
  input: {
    ...campaignId,
    status: z.string().max(32).optional().describe('Only contacts in this call status, e.g. PENDING or COMPLETED'),
    ...pageArgument,
    ...listArguments,
  },
  async run(args, context) {
    const limit = args.limit ?? DEFAULT_LIST_LIMIT;
    const page = args.page ?? 1;
    const found = await context.call<{ contacts: unknown[]; total: number }>(SERVICE, {
      method: 'GET',
      path: path(args.campaign_id, '/contacts'),
      query: { page, limit, status: args.status },
    });
    return listResult({ items: found.contacts, total: found.total, page, limit }, args.fields);
  },
});

const campaignsContactsAdd = defineTool({
  name: 'campaigns_contacts_add',
  title: 'Add contacts to a campaign',
  description:
    `Append up to ${MAX_CONTACTS_PER_ADD} contacts (phone, optional name and {{variables}}). Numbers are normalised ` +
    "with the campaign's country code; duplicates are skipped and counted, invalid numbers reported row by row; " +
    'nothing already there is removed.',
  toolClass: 'write',
  scopes: ['campaigns:write'],
  input: {
    ...campaignId,
    contacts: z
      .array(
        z.object({
          phone: z.string().min(1).max(32).describe('Phone number, E.164 or national'),
          name: z.string().max(255).optional(),
          variables: z.record(z.string(), z.unknown()).optional().describe('Values for the agent’s {{placeholders}}'),
        }),
      )
      .min(1)
      .max(MAX_CONTACTS_PER_ADD),
  },
  async run(args, context) {
    return valueResult(
      await context.call(SERVICE, {
        method: 'POST',
        path: path(args.campaign_id, '/contacts'),
        body: { contacts: args.contacts },
      }),
    );
  },
});

const campaignsStart = defineTool({
  name: 'campaigns_start',
  title: 'Start a campaign',
  description:
    'Start dialling: inside its window the dialler calls every pending contact, billed per call. Before its start ' +
    'date it waits (SCHEDULED). A paused campaign resumes.',
  toolClass: 'destructive',
  confirm: true,
  scopes: ['campaigns:control'],
  input: { ...campaignId, ...confirmArgument },
  async run(args, context) {
    if (!args.confirm) {
      const campaign = await getCampaign(context, args.campaign_id);
      return previewResult('campaigns_start', {
        action: `Start the campaign "${campaign.name}"`,
        target: summary(campaign),
        effects: [
          `The agent ${campaign.voiceAgent?.name ?? campaign.voiceAgent?.id ?? ''} calls its ${campaign.totalContacts} contacts inside ${summary(campaign).window}; each call is billed.`,
          'It can be paused with campaigns_pause at any time.',
        ],
      });
    }
    return valueResult(await context.call(SERVICE, { method: 'POST', path: path(args.campaign_id, '/start') }));
  },
});

const campaignsPause = defineTool({
  name: 'campaigns_pause',
  title: 'Pause a campaign',
  description: 'Stop placing new calls (calls in progress finish); campaigns_start resumes it.',
  toolClass: 'write',
  scopes: ['campaigns:control'],
  input: { ...campaignId },
  async run(args, context) {
    return valueResult(await context.call(SERVICE, { method: 'POST', path: path(args.campaign_id, '/pause') }));
  },
});

const campaignsComplete = defineTool({
  name: 'campaigns_complete',
  title: 'Complete a campaign',
  description: 'Mark a campaign complete: no more calls, for good (a campaign never dialled ends CANCELLED).',
  toolClass: 'destructive',
  confirm: true,
  scopes: ['campaigns:control'],
  input: { ...campaignId, ...confirmArgument },
  async run(args, context) {
    if (!args.confirm) {
      const campaign = await getCampaign(context, args.campaign_id);
      return previewResult('campaigns_complete', {
        action: `Complete the campaign "${campaign.name}"`,
        target: summary(campaign),
        effects: [
          'No further calls are placed; contacts not yet reached are not called.',
          'It cannot be started again (duplicate it to call again).',
        ],
      });
    }
    return valueResult(await context.call(SERVICE, { method: 'POST', path: path(args.campaign_id, '/complete') }));
  },
});

const campaignsStats = defineTool({
  name: 'campaigns_stats',
  title: 'Campaign statistics',
  description: 'How a campaign is doing: contacts by call status and result, calls placed, answered and failed.',
  toolClass: 'read',
  scopes: ['campaigns:read'],
  input: { ...campaignId },
  async run(args, context) {
    return valueResult(await context.call(SERVICE, { method: 'GET', path: path(args.campaign_id, '/stats') }));
  },
});

export const campaignTools: readonly Tool[] = [
  campaignsList,
  campaignsGet,
  campaignsCreate,
  campaignsContactsList,
  campaignsContactsAdd,
  campaignsStart,
  campaignsPause,
  campaignsComplete,
  campaignsStats,
];
