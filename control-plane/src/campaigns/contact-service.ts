/**
 * A campaign's contacts as the routes serve them (routes/v1/campaigns/contacts.ts): add, list with call status,
 * queue an upload, read an upload. The rules are contacts.ts; the file is read by upload-job.ts.
 */
import type { Principal } from '../auth/principal.ts';
import type { Sql } from '../db/database.ts';
import { newId } from '../db/ids.ts';
import { ApiError, notFound } from '../errors.ts';
import type { CampaignService } from './campaign-service.ts';
import { listContacts, type ContactRow } from './contact-repository.ts';
import { addContacts, assertTakesContacts, type ContactsAdded } from './contacts.ts';
import type { ContactStatus } from './records.ts';
import { countContacts, findCampaign, lockCampaign } from './repository.ts';
import { findUpload, insertUpload, type ColumnMapping, type UploadRow } from './upload-repository.ts';
import type { ContactInput } from './types.ts';

export interface ContactRecord {
  id: string;
  phone: string;
  name: string | null;
  variables: Record<string, unknown>;
  status: ContactStatus;
  attempts: number;
  nextAttemptAt: string | null;
  lastOutcome: string | null;
  failureReason: string | null;
  callId: string | null;
  roomName: string | null;
  callStatus: string | null;
  callDuration: number | null;
  extractedData: Record<string, unknown> | null;
  createdAt: string;
  updatedAt: string;
}

export interface UploadRecord {
  id: string;
  campaignId: string;
  fileName: string;
  format: 'csv' | 'xlsx';
  status: UploadRow['status'];
  result: Record<string, unknown> | null;
  error: string | null;
  createdAt: string;
  finishedAt: string | null;
}

export class ContactService {
  readonly #sql: Sql;
  readonly #campaigns: CampaignService;

  constructor(sql: Sql, campaigns: CampaignService) {
    this.#sql = sql;
    this.#campaigns = campaigns;
  }

  async add(principal: Principal, campaignId: string, contacts: readonly ContactInput[]): Promise<ContactsAdded> {
    const campaign = await this.#campaigns.row(principal, campaignId);
    assertTakesContacts(campaign);
    const added = await addContacts(this.#sql, campaign, contacts);
    return { ...added, totalContacts: await countContacts(this.#sql, campaign.id) };
  }

  async list(
    principal: Principal,
    campaignId: string,
    query: { page?: number; limit?: number; status?: ContactStatus },
  ): Promise<{ contacts: ContactRecord[]; total: number; totalPages: number; currentPage: number }> {
    const campaign = await this.#campaigns.row(principal, campaignId);
    const page = query.page ?? 1;
    const limit = query.limit ?? 50;
    const { rows, total } = await listContacts(this.#sql, campaign.id, {
      status: query.status,
      limit,
      offset: (page - 1) * limit,
    });
    return { contacts: rows.map(contactRecord), total, totalPages: Math.ceil(total / limit), currentPage: page };
  }

  /** Queues a contacts file for the upload job; 409 while another upload of the campaign waits or runs. */
  async queueUpload(
    principal: Principal,
    campaignId: string,
    file: { fileName: string; format: 'csv' | 'xlsx'; content: Buffer; mapping: ColumnMapping },
  ): Promise<UploadRecord> {
    const campaign = await this.#campaigns.row(principal, campaignId);
    const id = newId();
    await this.#sql.begin(async (tx) => {
      await lockCampaign(tx, campaign.id);
      const fresh = await findCampaign(tx, campaign.id);
      if (!fresh) throw notFound('Campaign');
      assertTakesContacts(fresh);
      if (fresh.busy_upload)
        throw new ApiError('conflict', 'The campaign is busy with another contact upload: wait for it to finish');
      await insertUpload(tx, { id, campaignId: campaign.id, organisationId: campaign.organisation_id, ...file });
    });
    return uploadRecord((await findUpload(this.#sql, campaign.id, id))!);
  }

  async upload(principal: Principal, campaignId: string, uploadId: string): Promise<UploadRecord> {
    const campaign = await this.#campaigns.row(principal, campaignId);
    const upload = await findUpload(this.#sql, campaign.id, uploadId);
    if (!upload) throw notFound('Upload');
    return uploadRecord(upload);
  }
}

function contactRecord(r: ContactRow): ContactRecord {
  return {
    id: r.id,
    phone: r.phone,
    name: r.name,
    variables: r.variables,
    status: r.status,
    attempts: r.attempts,
    nextAttemptAt: r.next_attempt_at?.toISOString() ?? null,
    lastOutcome: r.last_outcome,
    failureReason: r.failure_reason,
    callId: r.call_id,
    roomName: r.room_name,
    callStatus: r.call_status,
    callDuration: r.call_duration,
    extractedData: r.extracted_data,
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
  };
}

function uploadRecord(row: UploadRow): UploadRecord {
  return {
    id: row.id,
    campaignId: row.campaign_id,
    fileName: row.file_name,
    format: row.format,
    status: row.status,
    result: row.result,
    error: row.error,
    createdAt: row.created_at.toISOString(),
    finishedAt: row.finished_at?.toISOString() ?? null,
  };
}
