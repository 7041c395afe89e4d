-- Foundation: identities, tenancy, API keys, the e-mail outbox, and the agents columns widget tokens need.
-- Ids are 24 lower-case hex characters (time-ordered, see src/db/ids.ts).

create table users (
  id                 char(24) primary key,
  name               text not null,
  email              text not null,
  avatar             text,
  last_login         timestamptz,
  is_active          boolean not null default true,
  is_email_verified  boolean not null default false,
  email_verified_at  timestamptz,
  is_whitelisted     boolean not null default false,
  created_at         timestamptz not null default now(),
  updated_at         timestamptz not null default now(),
  deleted_at         timestamptz
);
create unique index users_email_key on users (lower(email)) where deleted_at is null;

create table organisations (
  id                           char(24) primary key,
  name                         text not null,
  description                  text not null default '',
  type                         text not null default 'TEAM' check (type in ('PERSONAL', 'TEAM')),
  visibility                   text not null default 'PRIVATE' check (visibility in ('PRIVATE', 'PUBLIC')),
  owner_id                     char(24) not null references users (id),
  is_active                    boolean not null default true,
  features                     text[] not null default '{}',
  billing_country              text,
  company_name                 text,
  company_registration_number  text,
  address_line1                text,
  address_line2                text,
  city                         text,
  state                        text,
  postal_code                  text,
  gstin                        text,
  mobile                       text,
  meta_data                    jsonb not null default '{}',
  created_at                   timestamptz not null default now(),
  updated_at                   timestamptz not null default now(),
  deleted_at                   timestamptz
);
create index organisations_owner_idx on organisations (owner_id);

create table members (
  id               char(24) primary key,
  organisation_id  char(24) not null references organisations (id) on delete cascade,
  user_id          char(24) not null references users (id),
  role             text not null check (role in ('OWNER', 'ADMIN', 'EDITOR', 'VIEWER')),
  joined_at        timestamptz not null default now(),
  unique (organisation_id, user_id)
);
create index members_user_idx on members (user_id);

create table invitations (
  id               char(24) primary key,
  organisation_id  char(24) not null references organisations (id) on delete cascade,
  email            text not null,
  name             text not null,
  role             text not null check (role in ('OWNER', 'ADMIN', 'EDITOR', 'VIEWER')),
  invited_by_id    char(24) not null references users (id),
  status           text not null check (status in ('PENDING', 'ACCEPTED', 'CANCELLED')),
  token            char(64) not null unique,
  expires_at       timestamptz not null,
  accepted_at      timestamptz,
  created_at       timestamptz not null default now(),
  updated_at       timestamptz not null default now()
);
-- One open invitation per address and organisation; accepted and cancelled ones stay as history.
create unique index invitations_open_key on invitations (organisation_id, lower(email)) where status = 'PENDING';

-- Agents: only what tenancy and widget tokens need; the Agents issue adds the rest in later migrations.
create table agents (
  id               char(24) primary key,
  organisation_id  char(24) not null references organisations (id) on delete cascade,
  name             text not null,
  agent_type       text not null default 'VOICE' check (agent_type in ('VOICE', 'CHAT')),
  is_active        boolean not null default true,
  created_at       timestamptz not null default now(),
  updated_at       timestamptz not null default now(),
  deleted_at       timestamptz
);
create index agents_organisation_idx on agents (organisation_id) where deleted_at is null;

create table api_keys (
  id               char(24) primary key,
  organisation_id  char(24) not null references organisations (id) on delete cascade,
  user_id          char(24) not null references users (id),
  kind             text not null check (kind in ('management', 'widget')),
  name             text not null,
  key_prefix       char(8) not null unique,
  key_hash         char(64) not null,
  last4            char(4) not null,
  scopes           text[] not null,
  agent_id         char(24) references agents (id) on delete cascade,
  ai_host          text,
  created_at       timestamptz not null default now(),
  last_used_at     timestamptz,
  revoked_at       timestamptz,
  check ((kind = 'widget') = (agent_id is not null))
);
create index api_keys_organisation_idx on api_keys (organisation_id);
create index api_keys_widget_idx on api_keys (agent_id) where revoked_at is null;

-- Mail is written here in the same transaction as the change that causes it, then sent by the outbox job.
create table email_outbox (
  id               char(24) primary key,
  organisation_id  char(24) references organisations (id) on delete set null,
  recipient        text not null,
  subject          text not null,
  body_text        text not null,
  body_html        text,
  status           text not null default 'PENDING' check (status in ('PENDING', 'SENT', 'FAILED')),
  attempts         integer not null default 0,
  next_attempt_at  timestamptz not null default now(),
  last_error       text,
  created_at       timestamptz not null default now(),
  sent_at          timestamptz
);
create index email_outbox_due_idx on email_outbox (next_attempt_at) where status = 'PENDING';
