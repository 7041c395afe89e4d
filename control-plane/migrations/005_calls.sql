-- Calls: the call record (spec document 1, "Call record"), what the engine said about each call (events, transcript
-- lines), the post-call analysis queue and the detailed analysis reports. Call placement (POST /voice/session,
-- callbacks, carrier webhooks, the scheduler) creates and moves records through src/calls/call-repository.ts.

create table call_records (
  id                   char(24) primary key,
  organisation_id      char(24) not null references organisations (id) on delete cascade,
  -- Agents are deleted softly, so a call keeps its agent for history and results.
  agent_id             char(24) not null references agents (id),
  -- The Call ID shown to users; unique across the installation (a carrier or a client may name it).
  room_name            text not null unique check (length(room_name) between 1 and 128),
  -- The campaigns table arrives with campaigns; until then the id is kept as given.
  campaign_id          char(24),
  participant_name     text not null default '',
  phone_number         text,
  created_by_id        char(24) references users (id),
  custom_variables     jsonb not null default '{}',
  scheduled_time       timestamptz,
  -- PENDING (waiting for scheduled_time), DISPATCHED, CANCELLED, FAILED: set by the scheduler.
  scheduled_status     text,
  -- OUTBOUND: the caller number used; INBOUND: the organisation's number that was called.
  calling_number       text,
  meta_data            jsonb not null default '{}',
  call_type            text not null check (call_type in ('sip', 'web', 'chat', 'websocket')),
  call_direction       text not null default 'OUTBOUND' check (call_direction in ('INBOUND', 'OUTBOUND')),
  -- null: a record only (nothing placed). SCHEDULED/QUEUED: waiting to be placed. INITIATED: handed to an engine.
  -- RINGING: the engine is connecting the media. IN_PROGRESS: answered. COMPLETED: over (call_outcome says how).
  -- FAILED: could not be carried out. CANCELLED: a scheduled call called off before it was placed.
  call_status          text check (call_status in ('SCHEDULED', 'QUEUED', 'INITIATED', 'RINGING', 'IN_PROGRESS', 'COMPLETED', 'FAILED', 'CANCELLED')),
  -- Milliseconds.
  call_duration        integer check (call_duration >= 0),
  -- completed, no_answer, busy, rejected, voicemail, failed (as the engine or carrier reports it).
  call_outcome         text,
  call_outcome_detail  text,
  is_billed            boolean not null default false,
  billed_at            timestamptz,
  agent_name           text not null default '',
  greeting_message     text,
  -- Relative path of the recording endpoint, set once the recording can be served.
  recording_url        text,
  -- Where the engine wrote the recording (relative to its recordings folder), from its `recording` event.
  recording_path       text,
  -- Call overview (spec document 1): score, classification, user_sentiment, summary, result.
  overview             jsonb,
  -- { tracking: one-line summary, items: [tool calls and keys pressed, in call order] }.
  actions              jsonb not null default '{"tracking": "", "items": []}',
  -- The agent result: { outcomeKey, outcomeLabel, captured, resultSource (flow | analysis), flowPath, decidedAt }.
  agent_result         jsonb,
  -- The engine's latency report of the `ended` event.
  latency              jsonb,
  -- How the call came about (results' `source` filter) and the client's label of it (`use:<name>`).
  source               text not null default 'unknown' check (source in ('campaign', 'inbound', 'api', 'manual', 'widget', 'unknown')),
  use_case             text,
  -- Post-call analysis: pending, done, failed, skipped (no language model); the reason of the last two.
  analysis_status      text check (analysis_status in ('pending', 'done', 'failed', 'skipped')),
  analysis_error       text,
  -- The engine's limit for the call, ms; the sweeper finalises a live call this long past its start (plus a margin).
  max_duration_ms      integer,
  engine_id            text,
  dispatched_at        timestamptz,
  answered_at          timestamptz,
  ended_at             timestamptz,
  -- The last event heard from the engine about this call: the sweeper's measure of a silent engine.
  last_event_at        timestamptz,
  created_at           timestamptz not null default now(),
  updated_at           timestamptz not null default now(),
  -- When the call was placed (a record only: when it was created). Results count and sort by it.
  started_at           timestamptz generated always as (coalesce(dispatched_at, created_at)) stored,
  -- answered, no_answer, busy, rejected, voicemail, failed, or null while the call is not over (history and stats).
  outcome_class        text generated always as (
    case
      when call_status = 'FAILED' or call_outcome = 'failed' then 'failed'
      when ended_at is null then null
      when call_outcome in ('no_answer', 'busy', 'rejected', 'voicemail') then call_outcome
      when call_outcome in ('completed', 'answered') or answered_at is not null then 'answered'
      else null
    end) stored,
  -- The results' useCase key: use:<name>, campaign:<id>, line:<number called> (inbound), else unlabelled.
  use_case_key         text generated always as (
    case
      when use_case is not null and use_case <> '' then 'use:' || use_case
      when campaign_id is not null then 'campaign:' || campaign_id::text
      when call_direction = 'INBOUND' and calling_number is not null then 'line:' || calling_number
      else 'unlabelled'
    end) stored
);
-- Lists newest first within an organisation (voice-sessions, call history).
create index call_records_organisation_idx on call_records (organisation_id, created_at desc, id desc);
-- Results of one agent by start time.
create index call_records_agent_idx on call_records (agent_id, started_at desc, id desc);
-- The sweeper's scan of live calls.
create index call_records_live_idx on call_records (last_event_at)
  where ended_at is null and call_status in ('INITIATED', 'RINGING', 'IN_PROGRESS');

-- Every event the engine published about a call, once: the key is the SHA-256 of the event's canonical JSON, so a
-- redelivered event is recognised and ignored (src/calls/call-event-persister.ts).
create table call_events (
  id               char(24) primary key,
  organisation_id  char(24) not null references organisations (id) on delete cascade,
  call_id          char(24) not null references call_records (id) on delete cascade,
  event_key        char(64) not null,
  type             text not null,
  payload          jsonb not null,
  received_at      timestamptz not null default now(),
  unique (call_id, event_key)
);

-- Transcript lines in spoken order: offsets are ms from the call's start, as the engine measured them.
create table call_transcripts (
  id               char(24) primary key,
  organisation_id  char(24) not null references organisations (id) on delete cascade,
  call_id          char(24) not null references call_records (id) on delete cascade,
  speaker          text not null check (speaker in ('user', 'assistant')),
  text             text not null,
  start_ms         integer not null,
  end_ms           integer not null,
  interrupted      boolean not null default false,
  created_at       timestamptz not null default now()
);
create index call_transcripts_call_idx on call_transcripts (call_id, start_ms, end_ms, id);

-- The post-call analysis queue: one row per call, leased with FOR UPDATE SKIP LOCKED (src/jobs/post-call-analysis.ts).
-- A claim pushes next_attempt_at forward and stamps lease_token; only the holder of the token may write the result.
create table call_analysis_jobs (
  id               char(24) primary key,
  organisation_id  char(24) not null references organisations (id) on delete cascade,
  call_id          char(24) not null unique references call_records (id) on delete cascade,
  status           text not null default 'pending' check (status in ('pending', 'done', 'failed', 'skipped')),
  attempts         integer not null default 0,
  next_attempt_at  timestamptz not null default now(),
  lease_token      text,
  last_error       text,
  created_at       timestamptz not null default now(),
  finished_at      timestamptz
);
create index call_analysis_jobs_due_idx on call_analysis_jobs (next_attempt_at) where status = 'pending';

-- Detailed analysis reports (spec document 1, "Detailed analysis report"), one per call: made once; a failure is final.
create table call_analysis_reports (
  id               char(24) primary key,
  organisation_id  char(24) not null references organisations (id) on delete cascade,
  call_id          char(24) not null unique references call_records (id) on delete cascade,
  room_name        text not null,
  -- running: being made (a claim that outlives ANALYSIS_CLAIM_SECONDS is taken over); ready; failed (final).
  status           text not null check (status in ('running', 'ready', 'failed')),
  instructions     text,
  transcript_text  text not null,
  parsed_analysis  jsonb,
  token_usage      jsonb,
  model            text,
  error            text,
  created_at       timestamptz not null default now(),
  updated_at       timestamptz not null default now()
);
