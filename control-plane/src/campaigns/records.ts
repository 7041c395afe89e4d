/**
 * A campaign two ways: the row (campaigns, with its live contact counts and its agent) and the record the API
 * returns (spec document 1, "Campaign"); and the vocabulary of campaign and contact states.
 */
import { storedFollowUpRules, type FollowUpRules } from './campaign-rules.ts';

export const CAMPAIGN_STATUSES = ['DRAFT', 'SCHEDULED', 'IN_PROGRESS', 'PAUSED', 'COMPLETED', 'CANCELLED'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];
/** States a campaign never leaves. */
export const FINAL_STATUSES: readonly CampaignStatus[] = ['COMPLETED', 'CANCELLED'];

export const CONTACT_STATUSES = ['PENDING', 'CALLING', 'COMPLETED', 'FAILED'] as const;
export type ContactStatus = (typeof CONTACT_STATUSES)[number];

export interface CampaignRow {
  id: string;
  organisation_id: string;
  created_by_id: string | null;
  name: string;
  description: string | null;
  voice_agent_id: string;
  dialing_number: string | null;
  sip_configuration_id: string | null;
  target_country_code: string;
  call_start_time: string;
  call_end_time: string;
  start_date: Date | null;
  end_date: Date | null;
  timezone: string;
  retry_count: number;
  cooldown_seconds: number;
  max_call_duration: number;
  inactivity_duration: number;
  status: CampaignStatus;
  paused_reason: string | null;
  data_extraction_schema: Record<string, unknown> | null;
  follow_up_round: number;
  follow_up_rules: unknown;
  parent_campaign_id: string | null;
  follow_up_settled_at: Date | null;
  follow_up_decided_at: Date | null;
  uploaded_file_name: string | null;
  uploaded_file_url: string | null;
  uploaded_at: Date | null;
  started_at: Date | null;
  paused_at: Date | null;
  completed_at: Date | null;
  created_at: Date;
  updated_at: Date;
  // Joined and counted by the repository's reads.
  total_contacts: number;
  completed_calls: number;
  failed_calls: number;
  in_progress_calls: number;
  busy_upload: boolean;
  created_by_name: string | null;
  created_by_email: string | null;
  agent_name: string | null;
  agent_custom_variables: Record<string, unknown> | null;
  agent_calling_number: string | null;
  agent_telephony_provider: string | null;
}

export interface CampaignRecord {
  id: string;
  name: string;
  description: string | null;
  organisationId: string;
  createdById: string | null;
  createdBy: { id: string; name: string | null; email: string | null } | null;
  voiceAgentId: string;
  voiceAgent: {
    id: string;
    name: string | null;
    customVariables: Record<string, unknown>;
    callingNumber: string | null;
    telephonyProvider: string | null;
  };
  dialingNumber: string | null;
  sipConfigurationId: string | null;
  targetCountryCode: string;
  callStartTime: string;
  callEndTime: string;
  startDate: string | null;
  endDate: string | null;
  timezone: string;
  retryCount: number;
  cooldownSeconds: number;
  maxCallDuration: number;
  inactivityDuration: number;
  status: CampaignStatus;
  pausedReason: string | null;
  totalContacts: number;
  completedCalls: number;
  failedCalls: number;
  inProgressCalls: number;
  uploadedFileName: string | null;
  uploadedFileUrl: string | null;
  dataExtractionSchema: Record<string, unknown> | null;
  followUpRound: number;
  followUpRules: FollowUpRules | null;
  parentCampaignId: string | null;
  followUpSettledAt: string | null;
  followUpDecidedAt: string | null;
  createdAt: string;
  updatedAt: string;
  uploadedAt: string | null;
  startedAt: string | null;
  pausedAt: string | null;
  completedAt: string | null;
}

const iso = (date: Date | null) => (date ? date.toISOString() : null);

export function campaignRecord(row: CampaignRow): CampaignRecord {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    organisationId: row.organisation_id,
    createdById: row.created_by_id,
    createdBy: row.created_by_id
      ? { id: row.created_by_id, name: row.created_by_name, email: row.created_by_email }
      : null,
    voiceAgentId: row.voice_agent_id,
    voiceAgent: {
      id: row.voice_agent_id,
      name: row.agent_name,
      customVariables: row.agent_custom_variables ?? {},
      callingNumber: row.agent_calling_number,
      telephonyProvider: row.agent_telephony_provider,
    },
    dialingNumber: row.dialing_number,
    sipConfigurationId: row.sip_configuration_id,
    targetCountryCode: row.target_country_code,
    callStartTime: row.call_start_time,
    callEndTime: row.call_end_time,
    startDate: iso(row.start_date),
    endDate: iso(row.end_date),
    timezone: row.timezone,
    retryCount: row.retry_count,
    cooldownSeconds: row.cooldown_seconds,
    maxCallDuration: row.max_call_duration,
    inactivityDuration: row.inactivity_duration,
    status: row.status,
    pausedReason: row.paused_reason,
    totalContacts: row.total_contacts,
    completedCalls: row.completed_calls,
    failedCalls: row.failed_calls,
    inProgressCalls: row.in_progress_calls,
    uploadedFileName: row.uploaded_file_name,
    uploadedFileUrl: row.uploaded_file_url,
    dataExtractionSchema: row.data_extraction_schema,
    followUpRound: row.follow_up_round,
    followUpRules: storedFollowUpRules(row.follow_up_rules),
    parentCampaignId: row.parent_campaign_id,
    followUpSettledAt: iso(row.follow_up_settled_at),
    followUpDecidedAt: iso(row.follow_up_decided_at),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    uploadedAt: iso(row.uploaded_at),
    startedAt: iso(row.started_at),
    pausedAt: iso(row.paused_at),
    completedAt: iso(row.completed_at),
  };
}
