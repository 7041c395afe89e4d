-- SIP trunks and SIP configurations (spec document 1 "SIP configuration"; docs/architecture.md §12). A trunk is where
-- the organisation's SIP traffic goes to and comes from (host, port, transport, digest credentials, the addresses
-- INVITEs may come from); a configuration puts one phone number of a trunk to work, INBOUND (answered by an agent)
-- or OUTBOUND (the caller number agents without a carrier number dial out from), with its limits and prices.

-- Who runs the trunk. A catalogue: the system's own rows (is_system) are seeded here; nobody edits them through the API.
create table sip_providers (
  id            char(24) primary key,
  name          text not null unique check (name ~ '^[a-z0-9][a-z0-9_-]{0,63}$'),
  display_name  text not null,
  is_system     boolean not null default false,
  is_active     boolean not null default true,
  created_at    timestamptz not null default now(),
  updated_at    timestamptz not null default now()
);
insert into sip_providers (id, name, display_name, is_system)
  values ('000000000000000000000001', 'generic', 'Generic SIP trunk', true);

create table sip_trunks (
  id                char(24) primary key,
  organisation_id   char(24) not null references organisations (id) on delete cascade,
  name              text not null,
  host              text not null,
  port              integer not null default 5060 check (port between 1 and 65535),
  transport         text not null default 'udp' check (transport in ('udp', 'tcp')),
  -- Digest credentials for the trunk's 401/407 challenges; the password is a ciphertext of the key ring
  -- (enc:v1:<key id>:…, bound to the organisation and the trunk) and is never returned by the API.
  username          text,
  password_secret   text,
  -- The addresses (IPv4/IPv6, or CIDR blocks) INVITEs for this trunk's numbers may come from; empty: none.
  source_addresses  text[] not null default '{}' check (array_position(source_addresses, null) is null),
  -- Whether the gateway REGISTERs to the trunk (for trunks that send calls only to registered contacts).
  register          boolean not null default false,
  is_active         boolean not null default true,
  created_at        timestamptz not null default now(),
  updated_at        timestamptz not null default now()
);
create index sip_trunks_organisation_idx on sip_trunks (organisation_id, created_at);

create table sip_configurations (
  id                                   char(24) primary key,
  organisation_id                      char(24) not null references organisations (id) on delete cascade,
  -- A trunk with configurations cannot be deleted: the configurations go first.
  sip_trunk_id                         char(24) not null references sip_trunks (id) on delete restrict,
  type                                 text not null check (type in ('INBOUND', 'OUTBOUND')),
  provider_id                          char(24) not null references sip_providers (id),
  -- INBOUND: the agent that answers; OUTBOUND: the agent that dials out from it by default (null: any agent).
  agent_id                             char(24) references agents (id) on delete set null,
  -- E.164: the dialled number an INBOUND configuration answers, the caller number an OUTBOUND one presents.
  phone_number                         text not null check (phone_number ~ '^\+[1-9][0-9]{6,14}$'),
  max_concurrent_calls                 integer not null default 10 check (max_concurrent_calls between 1 and 10000),
  max_queue_size                       integer not null default 0 check (max_queue_size between 0 and 1000),
  call_timeout_ms                      integer not null default 30000 check (call_timeout_ms between 1000 and 300000),
  calling_scope                        text not null default 'SAME_COUNTRY'
                                         check (calling_scope in ('SAME_COUNTRY', 'ALLOWED_COUNTRIES', 'ANY')),
  allowed_countries                    text[] not null default '{}' check (array_position(allowed_countries, null) is null),
  sip_refer_enabled                    boolean not null default false,
  -- What the customer pays, in minor units ×10⁴ of the organisation's billing currency (docs/architecture.md §7.6);
  -- the API shows them in major units, like ratePerMinute.
  customer_rental_per_month_minor_e4         bigint not null default 0 check (customer_rental_per_month_minor_e4 >= 0),
  customer_inbound_surcharge_per_min_minor_e4  bigint not null default 0 check (customer_inbound_surcharge_per_min_minor_e4 >= 0),
  customer_outbound_surcharge_per_min_minor_e4 bigint not null default 0 check (customer_outbound_surcharge_per_min_minor_e4 >= 0),
  -- What the trunk costs Parley (internal; never returned by the API).
  carrier_rental_per_month_minor_e4          bigint,
  carrier_cost_per_min_minor_e4              bigint,
  is_active                            boolean not null default true,
  created_at                           timestamptz not null default now(),
  updated_at                           timestamptz not null default now()
);
create index sip_configurations_organisation_idx on sip_configurations (organisation_id, created_at, id);
-- A dialled number is answered by one configuration: inbound matching is never ambiguous.
create unique index sip_configurations_inbound_number_key on sip_configurations (phone_number)
  where type = 'INBOUND' and is_active;

-- The configuration a call went over: its maxConcurrentCalls counts the live calls carrying it.
alter table call_records
  add column sip_configuration_id char(24) references sip_configurations (id) on delete set null;
create index call_records_live_by_sip_configuration on call_records (sip_configuration_id)
  where ended_at is null and sip_configuration_id is not null;
