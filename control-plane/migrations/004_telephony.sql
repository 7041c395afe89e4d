-- Telephony: carrier accounts connected by organisations (integrations), what phone numbers need beyond 002, the
-- registry of running changes to a carrier account, and a per-organisation wallet balance that the billing issue
-- will take over (until then number purchases and searches read it to refuse unfunded organisations with 402).

create table telephony_integrations (
  id                char(24) primary key,
  organisation_id   char(24) not null references organisations (id) on delete cascade,
  provider          text not null check (provider in ('carrier-a', 'carrier-b', 'carrier-c', 'carrier-d', 'carrier-e')),
  -- The carrier's identifier of the account (carrier-b: the AccountSid): what "the same account" means on reconnect.
  -- Never returned by the API.
  account_ref       text not null,
  -- Settings returned in `config` as they are (label, connected_at, amd, …).
  config            jsonb not null default '{}',
  -- Credentials by config key, each a ciphertext of the key ring (enc:v1:<key id>:…); `config` shows each key
  -- only as the literal "configured".
  secrets           jsonb not null default '{}',
  is_active         boolean not null default true,
  last_synced_at    timestamptz,
  created_at        timestamptz not null default now(),
  updated_at        timestamptz not null default now()
);
-- One connected account per organisation and carrier; a switched-away account keeps its row, inactive.
create unique index telephony_integrations_active_key on telephony_integrations (organisation_id, provider) where is_active;
create unique index telephony_integrations_account_key on telephony_integrations (organisation_id, provider, account_ref);

alter table phone_numbers
  add constraint phone_numbers_integration_fk foreign key (integration_id) references telephony_integrations (id) on delete set null,
  -- Where routing_status returns when the number's agent is unassigned (READY, PURCHASED or NEEDS_SETUP).
  add column unassigned_routing_status text check (unassigned_routing_status in ('PURCHASED', 'READY', 'NEEDS_SETUP')),
  -- What the customer pays for the number, when Parley sells it (managed and India numbers); null on own accounts.
  add column customer_rate_per_min numeric(12, 4),
  add column monthly_cost_usd numeric(12, 4),
  add column last_synced_at timestamptz;
create index phone_numbers_integration_idx on phone_numbers (integration_id) where deleted_at is null and status = 'ACTIVE';
-- Numbers' outboundAgents: agents dialling out with the number as their caller number.
create index agents_calling_number_idx on agents (organisation_id, calling_number) where deleted_at is null and calling_number is not null;

-- Changes running on a carrier account (connect, sync, disconnect), one at a time per account: a change claims its
-- account here under a Postgres advisory lock and writes its result under the same lock (src/telephony/change-lock.ts).
-- A claim lapses at expires_at, so a crashed process never locks an account for good.
create table telephony_changes (
  id               char(24) primary key,
  lock_key         text not null unique,
  organisation_id  char(24) not null references organisations (id) on delete cascade,
  provider         text not null,
  operation        text not null check (operation in ('connect', 'sync', 'disconnect')),
  started_at       timestamptz not null,
  expires_at       timestamptz not null
);

-- The organisation's pay-as-you-go wallet (spec document 1, Wallet: balance, currency, hasPaid), in minor units.
create table wallet_balances (
  id               char(24) primary key,
  organisation_id  char(24) not null unique references organisations (id) on delete cascade,
  balance_minor    bigint not null default 0,
  currency         text not null default 'USD' check (currency ~ '^[A-Z]{3}$'),
  has_paid         boolean not null default false,
  updated_at       timestamptz not null default now()
);
