/**
 * The call history (spec document 2, /call-history): an organisation's calls filtered for reports, a page at a time
 * or as an Excel workbook, and one call's transcript.
 */
import type { Principal } from '../../auth/principal.ts';
import type { Sql } from '../../db/database.ts';
import { notFound } from '../../errors.ts';
import { transcriptOf, type TranscriptLine } from '../repository/analysis-input.ts';
import { findCallByRoom } from '../repository/call-repository.ts';
import {
  historyBatches,
  historyCondition,
  historyPage,
  type Condition,
  type HistoryRow,
} from './history-repository.ts';
import { DEFAULT_PAGE_SIZE, MAX_EXPORT_ROWS, type HistoryFilters, type HistoryQuery } from './types.ts';

/** Rows read per query while exporting: small enough to keep each query short, large enough to keep the pace. */
const EXPORT_BATCH_ROWS = 500;

export function historyItem(row: HistoryRow) {
  return {
    id: row.id,
    roomName: row.room_name,
    phoneNumber: row.phone_number,
    participantName: row.participant_name,
    callDirection: row.call_direction,
    callType: row.call_type,
    agentId: row.agent_id,
    agentName: row.agent_name,
    campaignId: row.campaign_id,
    callStatus: row.call_status,
    createdAt: row.created_at,
    endedAt: row.ended_at,
    callDuration: row.call_duration,
    callOutcome: row.call_outcome,
    outcome: row.outcome_class,
    overview: row.overview,
    customVariables: row.custom_variables,
    recordingUrl: row.recording_url,
  };
}

export class CallHistoryService {
  readonly #sql: Sql;

  constructor(sql: Sql) {
    this.#sql = sql;
  }

  async list(principal: Principal, query: HistoryQuery) {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const page = query.page ?? 1;
    const { rows, total } = await historyPage(this.#sql, historyCondition(principal.organisationId, query), {
      limit,
      offset: (page - 1) * limit,
    });
    return {
      sessions: rows.map(historyItem),
      pagination: { page, limit, total, totalPages: Math.ceil(total / limit) },
    };
  }

  /** The filters checked now (a 400 before any byte is sent); the rows read as the workbook is written. */
  exportCondition(principal: Principal, filters: HistoryFilters): Condition {
    return historyCondition(principal.organisationId, filters);
  }

  exportBatches(condition: Condition): AsyncGenerator<HistoryRow[]> {
    return historyBatches(this.#sql, condition, MAX_EXPORT_ROWS, EXPORT_BATCH_ROWS);
  }

  async transcript(
    principal: Principal,
    roomName: string,
  ): Promise<{ roomName: string; sessionId: string; transcripts: TranscriptLine[] }> {
    const call = await findCallByRoom(this.#sql, principal.organisationId, roomName);
    if (!call) throw notFound('Call');
    return { roomName: call.room_name, sessionId: call.id, transcripts: await transcriptOf(this.#sql, call.id) };
  }
}
