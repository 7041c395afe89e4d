/** The greeting_audio table (migrations/003_greeting_audio.sql): one row per agent, its latest greeting. */
import { createHash } from 'node:crypto';
import type { Queryable } from '../db/database.ts';

export type GreetingStatus = 'pending' | 'ready' | 'failed' | 'per_call' | 'too_long';

/** What the audio of a greeting depends on. */
export interface GreetingVoice {
  voiceProvider: string | null;
  voiceId: string | null;
  voiceSpeed: number | null;
}

export interface GreetingRow extends GreetingVoice {
  agentId: string;
  agentVersion: number;
  cacheKey: string;
  text: string;
  status: GreetingStatus;
  sampleRate: number | null;
  audio: Buffer | null;
  error: string | null;
  updatedAt: Date;
}

export function greetingCacheKey(text: string, voice: GreetingVoice): string {
  return createHash('sha256')
    .update(JSON.stringify([voice.voiceProvider, voice.voiceId, voice.voiceSpeed, text]))
    .digest('hex');
}

interface Row {
  agent_id: string;
  agent_version: number;
  cache_key: string;
  text: string;
  voice_provider: string | null;
  voice_id: string | null;
  voice_speed: number | null;
  status: GreetingStatus;
  sample_rate: number | null;
  audio: Buffer | null;
  error: string | null;
  updated_at: Date;
}

const fromRow = (row: Row): GreetingRow => ({
  agentId: row.agent_id,
  agentVersion: row.agent_version,
  cacheKey: row.cache_key,
  text: row.text,
  voiceProvider: row.voice_provider,
  voiceId: row.voice_id,
  voiceSpeed: row.voice_speed,
  status: row.status,
  sampleRate: row.sample_rate,
  audio: row.audio,
  error: row.error,
  updatedAt: row.updated_at,
});

export async function findGreeting(sql: Queryable, agentId: string): Promise<GreetingRow | undefined> {
  const [row] = await sql<Row[]>`select * from greeting_audio where agent_id = ${agentId}`;
  return row ? fromRow(row) : undefined;
}

export interface GreetingWrite extends GreetingVoice {
  agentId: string;
  agentVersion: number;
  text: string;
  status: GreetingStatus;
  sampleRate?: number;
  audio?: Buffer;
  error?: string;
}

/**
 * Writes the agent's row unless a newer version's row is already there (a slow synthesis of an old version must
 * not replace the audio of the agent as it is now). True when written.
 */
export async function saveGreeting(sql: Queryable, write: GreetingWrite): Promise<boolean> {
  const key = greetingCacheKey(write.text, write);
  const rows = await sql`
    insert into greeting_audio (agent_id, agent_version, cache_key, text, voice_provider, voice_id, voice_speed, status, sample_rate, audio, error, updated_at)
    values (${write.agentId}, ${write.agentVersion}, ${key}, ${write.text}, ${write.voiceProvider}, ${write.voiceId}, ${write.voiceSpeed},
            ${write.status}, ${write.sampleRate ?? null}, ${write.audio ?? null}, ${write.error ?? null}, now())
    on conflict (agent_id) do update set
      agent_version = excluded.agent_version, cache_key = excluded.cache_key, text = excluded.text,
      voice_provider = excluded.voice_provider, voice_id = excluded.voice_id, voice_speed = excluded.voice_speed,
      status = excluded.status, sample_rate = excluded.sample_rate, audio = excluded.audio, error = excluded.error,
      updated_at = now()
    where greeting_audio.agent_version <= excluded.agent_version
    returning agent_id`;
  return rows.length > 0;
}

/**
 * Carries a ready row over to a new agent version whose greeting sounds the same (an edit elsewhere in the agent):
 * no synthesis needed. True when the row was carried over.
 */
export async function carryGreetingOver(
  sql: Queryable,
  agentId: string,
  agentVersion: number,
  cacheKey: string,
): Promise<boolean> {
  const rows = await sql`
    update greeting_audio set agent_version = ${agentVersion}, updated_at = now()
    where agent_id = ${agentId} and cache_key = ${cacheKey} and status = 'ready' and agent_version <= ${agentVersion}
    returning agent_id`;
  return rows.length > 0;
}

/** The ready audio of this agent version and greeting, for an engine's lookup. */
export async function readyGreeting(
  sql: Queryable,
  agentId: string,
  agentVersion: number,
  cacheKey: string,
): Promise<GreetingRow | undefined> {
  const [row] = await sql<Row[]>`
    select * from greeting_audio
    where agent_id = ${agentId} and agent_version = ${agentVersion} and cache_key = ${cacheKey} and status = 'ready'`;
  return row ? fromRow(row) : undefined;
}

export async function deleteGreeting(sql: Queryable, agentId: string): Promise<void> {
  await sql`delete from greeting_audio where agent_id = ${agentId}`;
}

/** What a greeting is made from: the agent's columns that its text and voice depend on. */
export interface GreetingAgentRow {
  id: string;
  version: number;
  agent_type: 'VOICE' | 'CHAT';
  greeting_message: string | null;
  custom_variables: Record<string, unknown>;
  language: string;
  voice_provider: string | null;
  voice_id: string | null;
  voice_speed: number | null;
}

/** Voice agents whose greeting is missing, older than the agent, or was left pending by a process that stopped. */
export async function agentsWithStaleGreetings(sql: Queryable): Promise<GreetingAgentRow[]> {
  return sql<GreetingAgentRow[]>`
    select a.id, a.version, a.agent_type, a.greeting_message, a.custom_variables, a.language, a.voice_provider, a.voice_id, a.voice_speed
    from agents a left join greeting_audio g on g.agent_id = a.id
    where a.deleted_at is null and a.agent_type = 'VOICE' and coalesce(a.greeting_message, '') <> ''
      and (g.agent_id is null or g.agent_version < a.version or g.status = 'pending')`;
}
