-- Agents: every field of the spec's Agent resource; the organisation's instruction budget; and phone numbers, which
-- the default outbound number of a new agent is chosen from (the telephony issue adds its own columns later).

-- Combined characters of agentIdentity, agentPersonality, agentTask, pronunciation and languageAccent (spec doc 3).
alter table organisations
  add column instruction_budget integer not null default 4000 check (instruction_budget between 1 and 1000000);

alter table agents
  add column description                text not null default '',
  add column created_by_id              char(24) references users (id),
  add column callback_agent_id          char(24) references agents (id),
  add column agent_identity             text not null default '',
  add column agent_personality          text,
  add column agent_task                 text,
  add column pronunciation              text,
  add column language_accent            text,
  add column greeting_message           text,
  add column closing_message            text,
  add column escalation_message         text,
  add column voicemail_message          text,
  add column language                   text not null default 'en-US',
  add column gender                     text check (gender in ('MALE', 'FEMALE', 'NEUTRAL')),
  add column voice_provider             text,
  add column voice_id                   text,
  add column voice_speed                double precision not null default 1,
  add column stt_mode                   text check (stt_mode in ('GLOBAL', 'INDIA', 'HUMANOID', 'GENERIC')),
  add column supported_language_group   text check (supported_language_group in ('English', 'Indian', 'Global')),
  add column language_selection_mode    text check (language_selection_mode in ('group', 'language')),
  add column supported_language         text,
  add column timezone                   text,
  add column background_noise           text,
  add column background_noise_volume    double precision,
  add column custom_variables           jsonb not null default '{}',
  -- Webhook tools keyed by tool key; bearer tokens are ciphertext (enc:v1:<key id>:…), never plain text.
  add column function_tools             jsonb not null default '{}',
  add column context_memory             jsonb not null default '{}',
  add column handover_data              jsonb not null default '{}',
  add column web_call_enabled           boolean not null default false,
  add column version                    integer not null default 1,
  add column last_used                  timestamptz,
  add column total_calls                integer not null default 0,
  add column builder_mode               text not null default 'PROMPT' check (builder_mode in ('PROMPT', 'FLOW')),
  add column flow_definition            jsonb,
  add column results_config             jsonb,
  -- A PROMPT agent's own resultsConfig, kept aside while the agent is FLOW and restored when it switches back.
  add column prompt_results_config      jsonb,
  add column calling_number             text,
  add column telephony_provider         text check (telephony_provider in ('carrier-a', 'carrier-b', 'carrier-c', 'carrier-d', 'carrier-e')),
  add check (agent_type = 'CHAT' or not web_call_enabled),
  add check (agent_type = 'VOICE' or (builder_mode = 'PROMPT' and flow_definition is null));

-- The list's order (newest first) within an organisation.
create index agents_list_idx on agents (organisation_id, created_at desc, id desc) where deleted_at is null;
create index agents_callback_idx on agents (callback_agent_id) where callback_agent_id is not null;

create table phone_numbers (
  id                  char(24) primary key,
  organisation_id     char(24) not null references organisations (id) on delete cascade,
  -- The telephony integration (carrier account) the number came from; that table arrives with telephony.
  integration_id      char(24),
  provider            text not null check (provider in ('carrier-a', 'carrier-b', 'carrier-c', 'carrier-d', 'carrier-e')),
  phone_number        text not null check (phone_number ~ '^\+[1-9][0-9]{6,14}$'),
  country_code        text,
  provider_number_id  text,
  friendly_name       text,
  status              text not null default 'ACTIVE' check (status in ('ACTIVE', 'INACTIVE')),
  routing_status      text check (routing_status in ('ASSIGNED', 'PURCHASED', 'READY', 'NEEDS_SETUP')),
  capabilities        jsonb not null default '{"voice": true, "sms": false}',
  -- The agent answering inbound calls on this number.
  agent_id            char(24) references agents (id) on delete set null,
  metadata            jsonb not null default '{}',
  created_at          timestamptz not null default now(),
  updated_at          timestamptz not null default now(),
  deleted_at          timestamptz
);
create unique index phone_numbers_number_key on phone_numbers (organisation_id, phone_number) where deleted_at is null;
-- The default outbound number of a new agent: the newest active number, by provider.
create index phone_numbers_active_idx on phone_numbers (organisation_id, provider, created_at desc)
  where deleted_at is null and status = 'ACTIVE';
