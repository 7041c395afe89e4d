/**
 * Campaign settings (spec document 2, "Campaigns (REST)"; document 1 "Campaign status"): create, list, read,
 * partial update, delete, duplicate, and the follow-up preview. Starting, pausing and completing are
 * campaign-control.ts; contacts are contacts.ts; calling them is the dialler (dialler.ts).
 */
import { findAgent } from '../agents/repository.ts';
import { agentRecord, type AgentRecord } from '../agents/records.ts';
import type { Principal } from '../auth/principal.ts';
import type { Sql } from '../db/database.ts';
import { newId } from '../db/ids.ts';
import { ApiError, badField, notFound } from '../errors.ts';
import {
  assertDates,
  assertTimeZone,
  assertWindow,
  booleanOf,
  DEFAULT_COOLDOWN_SECONDS,
  DEFAULT_COUNTRY_CODE,
  DEFAULT_FOLLOW_UP_RULES,
  DEFAULT_INACTIVITY_DURATION,
  DEFAULT_MAX_CALL_DURATION,
  DEFAULT_RETRY_COUNT,
  DEFAULT_TIMEZONE,
  followUpRulesOf,
  normaliseCountryCode,
  parseCampaignDate,
  storedFollowUpRules,
  type FollowUpRules,
  type ResultBucket,
} from './campaign-rules.ts';
import { dataExtractionSchemaOf } from './data-extraction.ts';
import { resolveDialing } from './dialing-number.ts';
import { campaignRecord, type CampaignRecord, type CampaignRow } from './records.ts';
import {
  copyContacts,
  countContacts,
  deleteCampaign,
  findCampaign,
  followUpRounds,
  insertCampaign,
  isOutboundSipConfiguration,
  listCampaigns,
  lockCampaign,
  resultBuckets,
  updateCampaign,
  type CampaignColumns,
} from './repository.ts';
import type { CreateCampaignBody, DuplicateCampaignBody, UpdateCampaignBody } from './types.ts';

export interface CampaignPage {
  campaigns: CampaignRecord[];
  total: number;
  totalPages: number;
  currentPage: number;
}

export interface FollowUpPreview {
  campaignId: string;
  name: string;
  status: string;
  timezone: string;
  followUpRound: number;
  rules: FollowUpRules;
  rulesSource: 'stored' | 'default';
  buckets: Record<ResultBucket, number>;
  pendingContacts: number;
  wouldDial: number;
  roundsCreated: { id: string; status: string; followUpRound: number }[];
}

export class CampaignService {
  readonly #sql: Sql;
  readonly #now: () => Date;

  constructor(sql: Sql, now: () => Date = () => new Date()) {
    this.#sql = sql;
    this.#now = now;
  }

  async create(principal: Principal, body: CreateCampaignBody): Promise<CampaignRecord> {
    const timezone = body.timezone ?? DEFAULT_TIMEZONE;
    assertTimeZone(timezone);
    assertWindow(body.callStartTime, body.callEndTime);
    const startDate = body.startDate ? parseCampaignDate(body.startDate, timezone, 'start', 'startDate') : null;
    const endDate = body.endDate ? parseCampaignDate(body.endDate, timezone, 'end', 'endDate') : null;
    assertDates(startDate, endDate, timezone, this.#now());
    const targetCountryCode = normaliseCountryCode(body.targetCountryCode ?? DEFAULT_COUNTRY_CODE);
    const rules = body.followUpRules == null ? null : followUpRulesOf(body.followUpRules);
    const agent = await this.#agent(principal.organisationId, body.voiceAgentId, 'voiceAgentId');
    if (rules) await this.#assertFollowUpTargets(principal.organisationId, rules);
    const dialing = await resolveDialing(this.#sql, principal.organisationId, agent, body.dialingNumber);
    const id = newId();
    await insertCampaign(this.#sql, id, {
      organisation_id: principal.organisationId,
      created_by_id: principal.userId,
      name: body.name.trim() || body.name,
      description: body.description ?? null,
      voice_agent_id: agent.id,
      dialing_number: dialing.dialingNumber,
      sip_configuration_id: dialing.sipConfigurationId,
      target_country_code: targetCountryCode,
      call_start_time: body.callStartTime,
      call_end_time: body.callEndTime,
      start_date: startDate,
      end_date: endDate,
      timezone,
      retry_count: body.retryCount ?? DEFAULT_RETRY_COUNT,
      cooldown_seconds: body.cooldownSeconds ?? DEFAULT_COOLDOWN_SECONDS,
      max_call_duration: body.maxCallDuration ?? DEFAULT_MAX_CALL_DURATION,
      inactivity_duration: body.inactivityDuration ?? DEFAULT_INACTIVITY_DURATION,
      data_extraction_schema: dataExtractionSchemaOf(body.dataExtractionSchema ?? null),
      follow_up_rules: rules,
    });
    return this.get(principal, id);
  }

  async list(principal: Principal, query: { page?: number; limit?: number }): Promise<CampaignPage> {
    const page = query.page ?? 1;
    const limit = query.limit ?? 20;
    const { rows, total } = await listCampaigns(this.#sql, principal.organisationId, {
      limit,
      offset: (page - 1) * limit,
    });
    return { campaigns: rows.map(campaignRecord), total, totalPages: Math.ceil(total / limit), currentPage: page };
  }

  async get(principal: Principal, id: string): Promise<CampaignRecord> {
    return campaignRecord(await this.row(principal, id));
  }

  /** The campaign's row: 404 when it does not exist, 403 when it is another organisation's (spec). */
  async row(principal: Principal, id: string): Promise<CampaignRow> {
    const row = await findCampaign(this.#sql, id);
    if (!row) throw notFound('Campaign');
    if (row.organisation_id !== principal.organisationId)
      throw new ApiError('foreign_organisation', 'The campaign belongs to another organisation');
    return row;
  }

  async update(principal: Principal, id: string, body: UpdateCampaignBody): Promise<CampaignRecord> {
    if (body.status !== undefined)
      throw badField('status', 'is not settable here: use POST /campaigns/{id}/start, /pause or /complete');
    const current = await this.row(principal, id);
    const organisationId = principal.organisationId;
    const timezone = body.timezone ?? current.timezone;
    if (body.timezone !== undefined) assertTimeZone(body.timezone);
    const start = body.callStartTime ?? current.call_start_time;
    const end = body.callEndTime ?? current.call_end_time;
    assertWindow(start, end);
    const startDate =
      body.startDate === undefined
        ? current.start_date
        : body.startDate === null
          ? null
          : parseCampaignDate(body.startDate, timezone, 'start', 'startDate');
    const endDate =
      body.endDate === undefined
        ? current.end_date
        : body.endDate === null
          ? null
          : parseCampaignDate(body.endDate, timezone, 'end', 'endDate');
    // Only dates sent are held to "not in the past": a running campaign keeps its start day.
    assertDates(body.startDate ? startDate : null, body.endDate ? endDate : null, timezone, this.#now());
    if (startDate && endDate && endDate < startDate) throw badField('endDate', 'must not be before startDate');
    const changes: CampaignColumns = {
      name: body.name,
      description: body.description,
      timezone: body.timezone,
      call_start_time: body.callStartTime,
      call_end_time: body.callEndTime,
      start_date: body.startDate === undefined ? undefined : startDate,
      end_date: body.endDate === undefined ? undefined : endDate,
      retry_count: body.retryCount,
      cooldown_seconds: body.cooldownSeconds,
      max_call_duration: body.maxCallDuration,
      inactivity_duration: body.inactivityDuration,
      data_extraction_schema:
        body.dataExtractionSchema === undefined ? undefined : dataExtractionSchemaOf(body.dataExtractionSchema),
    };
    if (body.followUpRules !== undefined) {
      const rules =
        body.followUpRules === null
          ? null
          : followUpRulesOf(
              body.followUpRules,
              storedFollowUpRules(current.follow_up_rules) ?? DEFAULT_FOLLOW_UP_RULES,
            );
      if (rules) await this.#assertFollowUpTargets(organisationId, rules);
      changes.follow_up_rules = rules;
    }
    const clearsNumber = body.dialingNumber === null || body.dialingNumber === '';
    if (body.voiceAgentId !== undefined && body.voiceAgentId !== current.voice_agent_id) {
      const agent = await this.#agent(organisationId, body.voiceAgentId, 'voiceAgentId');
      const sent = clearsNumber ? null : (body.dialingNumber ?? current.dialing_number);
      const dialing = await resolveDialing(this.#sql, organisationId, agent, sent);
      Object.assign(changes, {
        voice_agent_id: agent.id,
        dialing_number: dialing.dialingNumber,
        sip_configuration_id: dialing.sipConfigurationId,
      });
    } else if (clearsNumber) {
      changes.dialing_number = null;
    } else if (body.dialingNumber !== undefined) {
      const agent = await this.#agent(organisationId, current.voice_agent_id, 'dialingNumber');
      const dialing = await resolveDialing(this.#sql, organisationId, agent, body.dialingNumber);
      Object.assign(changes, {
        dialing_number: dialing.dialingNumber,
        sip_configuration_id: dialing.sipConfigurationId,
      });
    }
    const country = body.targetCountryCode === undefined ? undefined : normaliseCountryCode(body.targetCountryCode);
    await this.#sql.begin(async (tx) => {
      await lockCampaign(tx, id);
      const fresh = await findCampaign(tx, id);
      if (!fresh) throw notFound('Campaign');
      // Spec: 409 while busy with a contact upload (the upload reads numbers with the campaign's settings).
      if (fresh.busy_upload)
        throw new ApiError('conflict', 'The campaign is busy with a contact upload: change it once the upload ends');
      if (country !== undefined && country !== fresh.target_country_code) {
        if ((await countContacts(tx, id)) > 0)
          throw new ApiError(
            'conflict',
            'targetCountryCode can change only while the campaign has no contacts: their numbers were read with it',
          );
        changes.target_country_code = country;
      }
      await updateCampaign(tx, id, changes);
    });
    return this.get(principal, id);
  }

  async delete(principal: Principal, id: string): Promise<{ deleted: true; id: string }> {
    await this.row(principal, id);
    await this.#sql.begin(async (tx) => {
      await lockCampaign(tx, id);
      const fresh = await findCampaign(tx, id);
      if (!fresh) throw notFound('Campaign');
      if (fresh.status === 'IN_PROGRESS')
        throw new ApiError('invalid_state', 'The campaign is in progress: pause or complete it before deleting it');
      if (fresh.busy_upload)
        throw new ApiError('conflict', 'The campaign is busy with a contact upload: delete it once the upload ends');
      await deleteCampaign(tx, id);
    });
    return { deleted: true, id };
  }

  async duplicate(
    principal: Principal,
    id: string,
    body: DuplicateCampaignBody,
  ): Promise<CampaignRecord & { copiedContacts: number; scheduleCleared: boolean }> {
    const includeContacts = body.includeContacts === undefined ? false : booleanOf(body.includeContacts);
    if (includeContacts === undefined)
      throw badField('includeContacts', 'must be true or false (or "true", "false", 1, 0)');
    await this.row(principal, id);
    const copyId = newId();
    const now = this.#now();
    let copied = 0;
    let scheduleCleared = false;
    await this.#sql.begin(async (tx) => {
      // The source is held while it is copied: a delete or a change waits for the copy.
      await lockCampaign(tx, id);
      const source = await findCampaign(tx, id);
      if (!source) throw notFound('Campaign');
      if (source.busy_upload)
        throw new ApiError('conflict', 'The campaign is busy with a contact upload: duplicate it once the upload ends');
      const startDate = source.start_date && source.start_date < now ? null : source.start_date;
      const endDate = source.end_date && source.end_date < now ? null : source.end_date;
      scheduleCleared = startDate !== source.start_date || endDate !== source.end_date;
      await insertCampaign(tx, copyId, {
        organisation_id: source.organisation_id,
        created_by_id: principal.userId,
        name: body.name ?? `${source.name} (copy)`.slice(0, 200),
        description: source.description,
        voice_agent_id: source.voice_agent_id,
        dialing_number: source.dialing_number,
        sip_configuration_id: source.sip_configuration_id,
        target_country_code: source.target_country_code,
        call_start_time: source.call_start_time,
        call_end_time: source.call_end_time,
        start_date: startDate,
        end_date: endDate && startDate && endDate < startDate ? null : endDate,
        timezone: source.timezone,
        retry_count: source.retry_count,
        cooldown_seconds: source.cooldown_seconds,
        max_call_duration: source.max_call_duration,
        inactivity_duration: source.inactivity_duration,
        data_extraction_schema: source.data_extraction_schema,
        follow_up_rules: null,
      });
      if (includeContacts) copied = await copyContacts(tx, id, copyId, source.organisation_id);
    });
    return { ...(await this.get(principal, copyId)), copiedContacts: copied, scheduleCleared };
  }

  /** GET /campaigns/{id}/follow-up: what a follow-up round would dial, read only. */
  async followUpPreview(principal: Principal, id: string): Promise<FollowUpPreview> {
    const row = await this.row(principal, id);
    const stored = storedFollowUpRules(row.follow_up_rules);
    const rules = stored ?? DEFAULT_FOLLOW_UP_RULES;
    const buckets = await resultBuckets(this.#sql, id);
    const rounds = await followUpRounds(this.#sql, id);
    const pending = row.total_contacts - row.completed_calls - row.failed_calls;
    // Contacts still to be called are in not_reached until their last try; a round takes only finished ones.
    const finished = { ...buckets, not_reached: Math.max(0, buckets.not_reached - pending) };
    return {
      campaignId: row.id,
      name: row.name,
      status: row.status,
      timezone: row.timezone,
      followUpRound: row.follow_up_round,
      rules,
      rulesSource: stored ? 'stored' : 'default',
      buckets: finished,
      pendingContacts: pending,
      wouldDial: rules.enabled ? rules.results.reduce((sum, bucket) => sum + finished[bucket], 0) : 0,
      roundsCreated: rounds.map((r) => ({ id: r.id, status: r.status, followUpRound: r.follow_up_round })),
    };
  }

  /** A live VOICE agent of the organisation, else 404 (not ours) or 400 naming `field`. */
  async #agent(organisationId: string, agentId: string, field: string): Promise<AgentRecord> {
    const row = await findAgent(this.#sql, organisationId, agentId);
    if (!row) throw new ApiError('not_found', 'Agent not found in the organisation');
    const agent = agentRecord(row);
    if (agent.agentType !== 'VOICE')
      throw badField(field, `is a ${agent.agentType} agent: campaigns call with a VOICE agent`);
    if (!agent.isActive) throw badField(field, 'is not active: activate the agent first');
    return agent;
  }

  async #assertFollowUpTargets(organisationId: string, rules: FollowUpRules): Promise<void> {
    if (rules.voiceAgentId) {
      const row = await findAgent(this.#sql, organisationId, rules.voiceAgentId);
      if (!row || agentRecord(row).agentType !== 'VOICE')
        throw new ApiError(
          'not_found',
          'The follow-up voice agent (followUpRules.voiceAgentId) is not in the organisation',
        );
    }
    if (
      rules.sipConfigurationId &&
      !(await isOutboundSipConfiguration(this.#sql, organisationId, rules.sipConfigurationId))
    )
      throw new ApiError(
        'not_found',
        'The follow-up SIP configuration (followUpRules.sipConfigurationId) is not an active outbound one of the organisation',
      );
  }
}
