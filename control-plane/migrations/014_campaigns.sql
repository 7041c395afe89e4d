-- Campaigns (spec document 1 "Campaign", "Campaign status"; docs/architecture.md §13): the campaign, its contacts,
-- its contact uploads. The dialler (src/campaigns/dialler.ts) leases contacts FOR UPDATE SKIP LOCKED and places
-- each through the one launch path of src/calls/launch/, so every campaign call is an ordinary call record.

create table campaigns (
  id                     char(24) primary key,
  organisation_id        char(24) not null references organisations (id) on delete cascade,
  created_by_id          char(24) references users (id) on delete set null,
  name                   text not null check (length(name) between 1 and 200),
  description            text,
  -- Agents are deleted softly: a campaign keeps its agent, and the dialler refuses a deleted or inactive one.
  voice_agent_id         char(24) not null references agents (id),
  -- The caller number (E.164) for carrier agents; null for SIP agents, which dial through sip_configuration_id.
  dialing_number         text,
  -- An OUTBOUND SIP configuration (the SIP issue's table); no foreign key: that table may not exist yet.
  sip_configuration_id   char(24),
  target_country_code    text not null default '+1' check (target_country_code ~ '^\+[1-9][0-9]{0,3}$'),
  call_start_time        text not null check (call_start_time ~ '^([01][0-9]|2[0-3]):[0-5][0-9]$'),
  call_end_time          text not null check (call_end_time ~ '^([01][0-9]|2[0-3]):[0-5][0-9]$'),
  start_date             timestamptz,
  end_date               timestamptz,
  timezone               text not null default 'UTC',
  retry_count            integer not null default 0 check (retry_count between 0 and 10),
  cooldown_seconds       integer not null default 3600 check (cooldown_seconds between 0 and 2592000),
  max_call_duration      integer not null default 600 check (max_call_duration between 10 and 14400),
  inactivity_duration    integer not null default 30 check (inactivity_duration between 5 and 3600),
  status                 text not null default 'DRAFT'
                         check (status in ('DRAFT', 'SCHEDULED', 'IN_PROGRESS', 'PAUSED', 'COMPLETED', 'CANCELLED')),
  -- Why the dialler stopped a campaign by itself (the wallet could not pay); cleared when it is started again.
  paused_reason          text,
  data_extraction_schema jsonb,
  follow_up_round        integer not null default 0,
  follow_up_rules        jsonb,
  parent_campaign_id     char(24) references campaigns (id) on delete set null,
  follow_up_settled_at   timestamptz,
  follow_up_decided_at   timestamptz,
  uploaded_file_name     text,
  uploaded_file_url      text,
  uploaded_at            timestamptz,
  started_at             timestamptz,
  paused_at              timestamptz,
  completed_at           timestamptz,
  created_at             timestamptz not null default now(),
  updated_at             timestamptz not null default now(),
  check (call_start_time < call_end_time),
  check (end_date is null or start_date is null or end_date >= start_date)
);
create index campaigns_by_organisation on campaigns (organisation_id, created_at desc, id desc);
-- The dialler's pass reads only the campaigns it may dial.
create index campaigns_dialling on campaigns (status) where status in ('SCHEDULED', 'IN_PROGRESS');

-- PENDING: to be called (at next_attempt_at when set). CALLING: leased by a dialler, call_id is its current call.
-- COMPLETED: answered. FAILED: not reached after every attempt, or not callable (failure_reason says why).
create table campaign_contacts (
  id                char(24) primary key,
  campaign_id       char(24) not null references campaigns (id) on delete cascade,
  organisation_id   char(24) not null references organisations (id) on delete cascade,
  phone             text not null check (phone ~ '^\+[1-9][0-9]{6,14}$'),
  name              text,
  variables         jsonb not null default '{}',
  status            text not null default 'PENDING' check (status in ('PENDING', 'CALLING', 'COMPLETED', 'FAILED')),
  attempts          integer not null default 0,
  next_attempt_at   timestamptz,
  -- The call of the current or last attempt; chosen before the call is recorded, so a lost placement is found.
  call_id           char(24),
  leased_at         timestamptz,
  leased_by         text,
  last_outcome      text,
  failure_reason    text,
  -- dataExtractionSchema values filled from the last answered call's analysis.
  extracted_data    jsonb,
  position          bigserial,
  created_at        timestamptz not null default now(),
  updated_at        timestamptz not null default now(),
  unique (campaign_id, phone)
);
create index campaign_contacts_due on campaign_contacts (campaign_id, status, next_attempt_at, position)
  where status = 'PENDING';
create index campaign_contacts_calling on campaign_contacts (campaign_id) where status = 'CALLING';
create index campaign_contacts_call on campaign_contacts (call_id) where call_id is not null;

-- A CSV or XLSX file of contacts, read by the upload job. While one is PENDING or PROCESSING the campaign is busy
-- (409 on changes that would race it).
create table campaign_uploads (
  id                char(24) primary key,
  campaign_id       char(24) not null references campaigns (id) on delete cascade,
  organisation_id   char(24) not null references organisations (id) on delete cascade,
  file_name         text not null,
  format            text not null check (format in ('csv', 'xlsx')),
  content           bytea,
  mapping           jsonb not null,
  status            text not null default 'PENDING' check (status in ('PENDING', 'PROCESSING', 'DONE', 'FAILED')),
  leased_at         timestamptz,
  result            jsonb,
  error             text,
  created_at        timestamptz not null default now(),
  finished_at       timestamptz
);
create index campaign_uploads_waiting on campaign_uploads (created_at) where status in ('PENDING', 'PROCESSING');
create index campaign_uploads_by_campaign on campaign_uploads (campaign_id, created_at desc);
