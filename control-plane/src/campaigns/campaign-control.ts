/**
 * Moving a campaign through its states (spec document 1 "Campaign status"; start, pause and complete are "not
 * shown" there, so this is the design, documented in the OpenAPI):
 *
 *   DRAFT ──start──► SCHEDULED (startDate still ahead) ──startDate reached (dialler)──► IN_PROGRESS
 *   DRAFT ──start──► IN_PROGRESS ──pause──► PAUSED ──start──► IN_PROGRESS (or SCHEDULED)
 *   IN_PROGRESS ──every contact done, or endDate passed (dialler)──► COMPLETED
 *   IN_PROGRESS | PAUSED ──complete──► COMPLETED        DRAFT | SCHEDULED ──complete──► CANCELLED (never dialled)
 *   IN_PROGRESS ──the wallet cannot pay (dialler)──► PAUSED with pausedReason
 *
 * Every move locks the campaign row, so it never races the dialler's own moves.
 */
import { assertMayCall } from '../billing/call-admission.ts';
import type { Principal } from '../auth/principal.ts';
import type { Sql } from '../db/database.ts';
import { ApiError } from '../errors.ts';
import type { CampaignService } from './campaign-service.ts';
import { campaignStats } from './contact-repository.ts';
import type { CampaignRecord, CampaignStatus } from './records.ts';
import { countContacts, findCampaign, lockCampaign, updateCampaign } from './repository.ts';

export interface CampaignStats {
  campaignId: string;
  status: CampaignStatus;
  pausedReason: string | null;
  contacts: { total: number; pending: number; calling: number; completed: number; failed: number };
  attempts: number;
  callsPlaced: number;
  callsAnswered: number;
  answerRate: number;
  averageAnsweredSeconds: number;
  answeredMinutes: number;
  outcomes: Record<string, number>;
  progress: number;
}

export class CampaignControl {
  readonly #sql: Sql;
  readonly #campaigns: CampaignService;
  readonly #now: () => Date;

  constructor(sql: Sql, campaigns: CampaignService, now: () => Date = () => new Date()) {
    this.#sql = sql;
    this.#campaigns = campaigns;
    this.#now = now;
  }

  async start(principal: Principal, id: string): Promise<CampaignRecord> {
    await this.#campaigns.row(principal, id);
    // A wallet that cannot pay would stop the campaign at its first call: say so now (402).
    await assertMayCall(this.#sql, principal.organisationId);
    await this.#sql.begin(async (tx) => {
      await lockCampaign(tx, id);
      const row = (await findCampaign(tx, id))!;
      if (row.status === 'IN_PROGRESS' || row.status === 'SCHEDULED')
        throw new ApiError('invalid_state', `The campaign is already ${row.status}`);
      if (row.status === 'COMPLETED' || row.status === 'CANCELLED')
        throw new ApiError('invalid_state', `The campaign is ${row.status}: duplicate it to run it again`);
      if (row.busy_upload)
        throw new ApiError('conflict', 'The campaign is busy with a contact upload: start it once the upload ends');
      if ((await countContacts(tx, id)) === 0)
        throw new ApiError('invalid_state', 'The campaign has no contacts: add contacts before starting it');
      const now = this.#now();
      if (row.end_date && row.end_date < now)
        throw new ApiError('invalid_state', 'The campaign ended (endDate has passed): change endDate to start it');
      const next: CampaignStatus = row.start_date && row.start_date > now ? 'SCHEDULED' : 'IN_PROGRESS';
      await updateCampaign(tx, id, {
        status: next,
        started_at: row.started_at ?? (next === 'IN_PROGRESS' ? now : null),
        paused_at: null,
        paused_reason: null,
      });
    });
    return this.#campaigns.get(principal, id);
  }

  async pause(principal: Principal, id: string): Promise<CampaignRecord> {
    await this.#campaigns.row(principal, id);
    await this.#sql.begin(async (tx) => {
      await lockCampaign(tx, id);
      const row = (await findCampaign(tx, id))!;
      if (row.status !== 'IN_PROGRESS' && row.status !== 'SCHEDULED')
        throw new ApiError(
          'invalid_state',
          `Only a running or scheduled campaign can be paused; this one is ${row.status}`,
        );
      // Calls already placed run to their end; no new one is placed.
      await updateCampaign(tx, id, { status: 'PAUSED', paused_at: this.#now() });
    });
    return this.#campaigns.get(principal, id);
  }

  async complete(principal: Principal, id: string): Promise<CampaignRecord> {
    await this.#campaigns.row(principal, id);
    await this.#sql.begin(async (tx) => {
      await lockCampaign(tx, id);
      const row = (await findCampaign(tx, id))!;
      if (row.status === 'COMPLETED' || row.status === 'CANCELLED')
        throw new ApiError('invalid_state', `The campaign is already ${row.status}`);
      const dialled = row.status === 'IN_PROGRESS' || row.status === 'PAUSED';
      await updateCampaign(tx, id, { status: dialled ? 'COMPLETED' : 'CANCELLED', completed_at: this.#now() });
    });
    return this.#campaigns.get(principal, id);
  }

  async stats(principal: Principal, id: string): Promise<CampaignStats> {
    const row = await this.#campaigns.row(principal, id);
    const s = await campaignStats(this.#sql, id);
    const done = s.completed + s.failed;
    return {
      campaignId: id,
      status: row.status,
      pausedReason: row.paused_reason,
      contacts: { total: s.total, pending: s.pending, calling: s.calling, completed: s.completed, failed: s.failed },
      attempts: s.attempts,
      callsPlaced: s.calls_placed,
      callsAnswered: s.calls_answered,
      answerRate: s.calls_placed ? round2(s.calls_answered / s.calls_placed) : 0,
      averageAnsweredSeconds: s.calls_answered ? Math.round(s.answered_seconds / s.calls_answered) : 0,
      answeredMinutes: round2(s.answered_seconds / 60),
      outcomes: s.outcomes ?? {},
      progress: s.total ? round2(done / s.total) : 0,
    };
  }
}

const round2 = (n: number) => Math.round(n * 100) / 100;
