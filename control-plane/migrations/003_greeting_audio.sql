-- The greeting cache: each voice agent's greeting, synthesised through the TTS workers when the agent is saved and
-- served to engines while a call rings (engine/src/protocol/greeting-audio.ts). One row per agent: its latest.
create table greeting_audio (
  agent_id        char(24) primary key references agents (id) on delete cascade,
  -- The agent version the row belongs to; a synthesis for an older version never overwrites a newer one.
  agent_version   integer not null,
  -- sha256 of (voice provider, voice, speed, text): what the audio depends on.
  cache_key       char(64) not null,
  text            text not null,
  voice_provider  text,
  voice_id        text,
  voice_speed     double precision,
  -- pending: being synthesised; ready: audio holds it; failed: see error; per_call: placeholders without defaults,
  -- so each call synthesises its own; too_long: over the cache's limit, synthesised per call.
  status          text not null check (status in ('pending', 'ready', 'failed', 'per_call', 'too_long')),
  sample_rate     integer,
  -- PCM16 little-endian, mono.
  audio           bytea,
  error           text,
  updated_at      timestamptz not null default now(),
  check ((status = 'ready') = (audio is not null))
);
