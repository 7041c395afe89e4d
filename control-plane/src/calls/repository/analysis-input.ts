/**
 * What an analysis of a call reads: the call, its agent (read here with our own SQL: the agent routes are not ours)
 * and its transcript in spoken order.
 */
import type { ResultsConfig } from '@parley/engine/protocol';
import type { Queryable } from '../../db/database.ts';
import type { AgentResult, CallDirection } from './call-records.ts';

export interface TranscriptLine {
  id: string;
  speaker: 'user' | 'assistant';
  text: string;
  startMs: number;
  endMs: number;
  interrupted: boolean;
  createdAt: Date;
}

export interface AnalysisInput {
  callId: string;
  organisationId: string;
  roomName: string;
  direction: CallDirection;
  participantName: string;
  startedAt: Date;
  durationMs: number | null;
  agentResult: AgentResult | null;
  agent: {
    id: string;
    name: string;
    identity: string;
    task: string | null;
    builderMode: 'PROMPT' | 'FLOW';
    resultsConfig: ResultsConfig | null;
    timezone: string | null;
  };
  transcript: TranscriptLine[];
}

/** Every line of the call in spoken order: by start offset, then end, then arrival. */
export async function transcriptOf(sql: Queryable, callId: string): Promise<TranscriptLine[]> {
  const rows = await sql<
    {
      id: string;
      speaker: 'user' | 'assistant';
      text: string;
      start_ms: number;
      end_ms: number;
      interrupted: boolean;
      created_at: Date;
    }[]
  >`
    select id, speaker, text, start_ms, end_ms, interrupted, created_at from call_transcripts
     where call_id = ${callId} order by start_ms, end_ms, id`;
  return rows.map((r) => ({
    id: r.id,
    speaker: r.speaker,
    text: r.text,
    startMs: r.start_ms,
    endMs: r.end_ms,
    interrupted: r.interrupted,
    createdAt: r.created_at,
  }));
}

interface InputRow {
  id: string;
  organisation_id: string;
  room_name: string;
  call_direction: CallDirection;
  participant_name: string;
  started_at: Date;
  call_duration: number | null;
  agent_result: AgentResult | null;
  agent_id: string;
  agent_name: string;
  agent_identity: string;
  agent_task: string | null;
  builder_mode: 'PROMPT' | 'FLOW';
  results_config: ResultsConfig | null;
  timezone: string | null;
}

export async function loadAnalysisInput(sql: Queryable, callId: string): Promise<AnalysisInput | undefined> {
  const [row] = await sql<InputRow[]>`
    select c.id, c.organisation_id, c.room_name, c.call_direction, c.participant_name, c.started_at, c.call_duration, c.agent_result,
           a.id as agent_id, a.name as agent_name, a.agent_identity, a.agent_task, a.builder_mode, a.results_config, a.timezone
      from call_records c join agents a on a.id = c.agent_id
     where c.id = ${callId}`;
  if (!row) return undefined;
  return {
    callId: row.id,
    organisationId: row.organisation_id,
    roomName: row.room_name,
    direction: row.call_direction,
    participantName: row.participant_name,
    startedAt: row.started_at,
    durationMs: row.call_duration,
    agentResult: row.agent_result,
    agent: {
      id: row.agent_id,
      name: row.agent_name,
      identity: row.agent_identity,
      task: row.agent_task,
      builderMode: row.builder_mode,
      resultsConfig: row.results_config,
      timezone: row.timezone,
    },
    transcript: await transcriptOf(sql, callId),
  };
}
