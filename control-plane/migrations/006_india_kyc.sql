-- India numbers (carrier-d, the India numbering partner): each organisation's KYC application (spec document 1,
-- India KYC application) and the renewal record of every India number bought (spec document 2: renewal needs an
-- active renewal record). The organisation's India connection is its carrier-d row of telephony_integrations.

create table india_kyc_applications (
  id                        char(24) primary key,
  organisation_id           char(24) not null unique references organisations (id) on delete cascade,
  integration_id            char(24) references telephony_integrations (id) on delete set null,
  provider                  text not null default 'carrier-d' check (provider = 'carrier-d'),
  provider_application_id   text not null,
  account_type              text not null check (account_type in ('individual', 'business')),
  -- Parley's reading of the partner's status (src/telephony/india-kyc.ts); provider_status is the partner's word.
  state                     text not null check (state in ('in_progress', 'pending_review', 'approved', 'rejected', 'unknown')),
  provider_status           text not null,
  -- Where state was last read: a wizard step's answer (step) or the live check before a purchase (live_check).
  status_source             text not null check (status_source in ('step', 'live_check')),
  last_step                 text not null check (last_step in ('register', 'pan', 'aadhaar', 'gst', 'final')),
  aadhaar_verified          boolean not null default false,
  submitted_at              timestamptz,
  decided_at                timestamptz,
  rejection_reason          text,
  last_checked_at           timestamptz not null,
  country_iso               text not null default 'IN',
  number_type               text,
  -- The last live check could not reach the partner (the state above is older than last_checked_at says).
  verification_unavailable  boolean not null default false,
  status_unrecognised       boolean not null default false,
  -- The register step records the customer's acceptance of the partner's terms: when, and by whose key.
  terms_accepted_at         timestamptz not null,
  terms_accepted_by         char(24) not null,
  terms_accepted_key_id     char(24) not null,
  created_at                timestamptz not null default now(),
  updated_at                timestamptz not null default now()
);

create table india_did_renewals (
  id                  char(24) primary key,
  organisation_id     char(24) not null references organisations (id) on delete cascade,
  phone_number_id     char(24) not null references phone_numbers (id) on delete cascade,
  integration_id      char(24) references telephony_integrations (id) on delete set null,
  -- The partner's integer id of the DID, its purchase order and the bot routing the number's calls.
  provider_did_id     text not null,
  provider_order_id   text not null,
  bot_id              text not null,
  -- The rental term bought; each renewal extends the number by the same term.
  months              integer not null check (months between 1 and 12),
  is_active           boolean not null default true,
  expires_at          timestamptz,
  last_renewed_at     timestamptz,
  last_purchase_id    text,
  created_at          timestamptz not null default now(),
  updated_at          timestamptz not null default now()
);
-- One active renewal record per number; a number bought again replaces it.
create unique index india_did_renewals_active_key on india_did_renewals (phone_number_id) where is_active;
create index india_did_renewals_organisation_idx on india_did_renewals (organisation_id);
