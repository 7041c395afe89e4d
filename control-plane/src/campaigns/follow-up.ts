/**
 * Follow-up rounds (spec document 1, followUpRules): when a campaign with enabled rules is COMPLETED, the dialler
 * decides its follow-up once. While its round is below maxRounds, a new campaign — round + 1, parentCampaignId set
 * — takes the contacts whose call-result bucket is one of `results`, fresh and PENDING; it calls from delayDays
 * after the completion for windowDays, with the rules' voiceAgentId (else the same agent) and its number, and the
 * same rules, so rounds chain up to maxRounds. autoStart makes it SCHEDULED (the dialler starts it on its first
 * day); otherwise it waits as a DRAFT. No contact in those buckets: decided, no round.
 *
 * The parent's row is locked and follow_up_decided_at checked in the same transaction, so two dialler instances
 * create one round at most.
 */
import { findAgent } from '../agents/repository.ts';
import { agentRecord } from '../agents/records.ts';
import type { Sql } from '../db/database.ts';
import { newId } from '../db/ids.ts';
import { storedFollowUpRules } from './campaign-rules.ts';
import { resolveDialing } from './dialing-number.ts';
import {
  copyContactsInBuckets,
  deleteCampaign,
  findCampaign,
  insertCampaign,
  lockCampaign,
  updateCampaign,
} from './repository.ts';

const DAY_MS = 86_400_000;

export type FollowUpDecision =
  | { kind: 'round'; campaignId: string; contacts: number }
  | { kind: 'none'; reason: string }
  | { kind: 'taken' };

/** Decides the follow-up of a COMPLETED campaign (once): creates its next round, or records that there is none. */
export async function decideFollowUp(sql: Sql, parentId: string, now: Date): Promise<FollowUpDecision> {
  return sql.begin(async (tx) => {
    await lockCampaign(tx, parentId);
    const parent = await findCampaign(tx, parentId);
    if (!parent || parent.status !== 'COMPLETED' || parent.follow_up_decided_at) return { kind: 'taken' } as const;
    const rules = storedFollowUpRules(parent.follow_up_rules);
    const none = async (reason: string): Promise<FollowUpDecision> => {
      await updateCampaign(tx, parentId, {
        follow_up_decided_at: now,
        follow_up_settled_at: parent.completed_at ?? now,
      });
      return { kind: 'none', reason };
    };
    if (!rules?.enabled) return none('follow-up rules are off');
    if (parent.follow_up_round >= rules.maxRounds)
      return none(`round ${parent.follow_up_round} is the last (maxRounds)`);
    const agentId = rules.voiceAgentId ?? parent.voice_agent_id;
    const agentRow = await findAgent(tx, parent.organisation_id, agentId);
    if (!agentRow) return none('the follow-up agent no longer exists');
    const agent = agentRecord(agentRow);
    let dialing: { dialingNumber: string | null; sipConfigurationId: string | null };
    try {
      dialing = await resolveDialing(
        tx,
        parent.organisation_id,
        agent,
        agentId === parent.voice_agent_id ? parent.dialing_number : null,
      );
    } catch (error) {
      return none(`the follow-up agent cannot call: ${error instanceof Error ? error.message : String(error)}`);
    }
    const childId = newId();
    const startDate = new Date((parent.completed_at ?? now).getTime() + rules.delayDays * DAY_MS);
    const round = parent.follow_up_round + 1;
    await insertCampaign(tx, childId, {
      organisation_id: parent.organisation_id,
      created_by_id: parent.created_by_id,
      name: `${parent.name} (follow-up ${round})`.slice(0, 200),
      description: parent.description,
      voice_agent_id: agent.id,
      dialing_number: dialing.dialingNumber,
      sip_configuration_id: rules.sipConfigurationId ?? dialing.sipConfigurationId,
      target_country_code: parent.target_country_code,
      call_start_time: parent.call_start_time,
      call_end_time: parent.call_end_time,
      start_date: startDate,
      end_date: new Date(startDate.getTime() + rules.windowDays * DAY_MS),
      timezone: parent.timezone,
      retry_count: parent.retry_count,
      cooldown_seconds: parent.cooldown_seconds,
      max_call_duration: parent.max_call_duration,
      inactivity_duration: parent.inactivity_duration,
      data_extraction_schema: parent.data_extraction_schema,
      follow_up_round: round,
      follow_up_rules: rules,
      parent_campaign_id: parent.id,
      status: rules.autoStart ? 'SCHEDULED' : 'DRAFT',
    });
    const contacts = await copyContactsInBuckets(tx, parent.id, childId, parent.organisation_id, rules.results);
    if (contacts === 0) {
      // Nobody to call again: the round is not kept.
      await deleteCampaign(tx, childId);
      return none(`no contact is in ${rules.results.join(', ')}`);
    }
    await updateCampaign(tx, parentId, { follow_up_decided_at: now, follow_up_settled_at: parent.completed_at ?? now });
    return { kind: 'round', campaignId: childId, contacts };
  });
}
