/**
 * Reports of POST /analytics/analyze (`call_analysis_reports`, one per call) and the overview that
 * POST /analytics/analyze-overview writes on the call record. A report is made by one request at a time: it is
 * created `running`, and another request may take it over only once it has been running too long.
 */
import type { Queryable } from '../../db/database.ts';
import { newId } from '../../db/ids.ts';
import type { TokenUsage } from '../analysis/structured-answer.ts';
import { json } from './call-repository.ts';

export interface ReportRow {
  id: string;
  room_name: string;
  status: 'running' | 'ready' | 'failed';
  instructions: string | null;
  transcript_text: string;
  parsed_analysis: Record<string, unknown> | null;
  token_usage: TokenUsage | null;
  model: string | null;
  error: string | null;
  created_at: Date;
  updated_at: Date;
}

/** A new running report, or undefined when the call has one already. */
export async function createRunningReport(
  sql: Queryable,
  report: {
    organisationId: string;
    callId: string;
    roomName: string;
    instructions: string | null;
    transcriptText: string;
  },
): Promise<ReportRow | undefined> {
  const [created] = await sql<ReportRow[]>`
    insert into call_analysis_reports (id, organisation_id, call_id, room_name, status, instructions, transcript_text)
    values (${newId()}, ${report.organisationId}, ${report.callId}, ${report.roomName}, 'running', ${report.instructions},
            ${report.transcriptText})
    on conflict (call_id) do nothing returning *`;
  return created;
}

/** The call's running report when it has been running longer than `lapsedAfterSeconds` (its maker gave up): taken over. */
export async function takeLapsedReport(
  sql: Queryable,
  callId: string,
  take: { instructions: string | null; transcriptText: string; lapsedAfterSeconds: number },
): Promise<ReportRow | undefined> {
  const [taken] = await sql<ReportRow[]>`
    update call_analysis_reports set instructions = ${take.instructions}, transcript_text = ${take.transcriptText},
           updated_at = now()
     where call_id = ${callId} and status = 'running'
       and updated_at < now() - make_interval(secs => ${take.lapsedAfterSeconds})
    returning *`;
  return taken && { ...taken, status: 'running' };
}

export async function findReport(sql: Queryable, callId: string): Promise<ReportRow | undefined> {
  const [existing] = await sql<ReportRow[]>`select * from call_analysis_reports where call_id = ${callId}`;
  return existing;
}

export async function markReportReady(
  sql: Queryable,
  id: string,
  done: { parsedAnalysis: unknown; tokenUsage: TokenUsage; model: string },
): Promise<ReportRow> {
  const [row] = await sql<ReportRow[]>`update call_analysis_reports
       set status = 'ready', parsed_analysis = ${json(sql, done.parsedAnalysis)}, token_usage = ${json(sql, done.tokenUsage)},
           model = ${done.model}, updated_at = now()
     where id = ${id} returning *`;
  return row!;
}

/** Nothing was analysed (no model): the running report goes, so the call may be analysed later. */
export async function dropRunningReport(sql: Queryable, id: string): Promise<void> {
  await sql`delete from call_analysis_reports where id = ${id} and status = 'running'`;
}

export async function markReportFailed(
  sql: Queryable,
  id: string,
  failure: { reason: string; model: string },
): Promise<void> {
  await sql`update call_analysis_reports set status = 'failed', error = ${failure.reason}, model = ${failure.model},
              updated_at = now() where id = ${id}`;
}

/** The call's overview, written by an analysis asked for through the API. */
export async function saveOverview(sql: Queryable, callId: string, overview: unknown): Promise<void> {
  await sql`update call_records set overview = ${json(sql, overview)}, analysis_status = 'done', analysis_error = null,
              updated_at = now() where id = ${callId}`;
}
