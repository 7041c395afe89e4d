-- Wallet, billing and payments (spec document 1 "Wallet and billing", docs/architecture.md §10).
--
-- The ledger is double-entry: every balance change is a ledger transaction whose entries (one per account it
-- moves) sum to zero, written in the same database transaction as the stored balances it moves. An organisation's
-- wallets are accounts with a stored balance; the platform's side (revenue, payments received, promotions,
-- operator adjustments, expired money) are accounts whose balance is only ever computed from their entries, so no
-- hot row serialises every organisation's debits. Entries and transactions are never updated: a mistake is
-- corrected by a reversing transaction.

-- The organisation's billing: which model it is on, whether it is suspended, its pay-as-you-go rates.
create table billing_accounts (
  organisation_id        char(24) primary key references organisations (id) on delete cascade,
  -- LEGACY_USD: pay-as-you-go USD wallet. WALLET: plan billing (a plan wallet of grants in the country's currency).
  billing_model          text not null default 'LEGACY_USD' check (billing_model in ('LEGACY_USD', 'WALLET')),
  is_suspended           boolean not null default false,
  suspended_reason       text,
  -- Pay-as-you-go rates in US cents with 4 decimals (fixed point, units of 1/10000 cent); null: the defaults.
  rate_per_minute_e4     bigint check (rate_per_minute_e4 >= 0),
  rate_per_message_e4    bigint check (rate_per_message_e4 >= 0),
  low_balance_threshold_minor bigint check (low_balance_threshold_minor >= 0),
  -- When the one-time sign-up credit of plan billing was given (spec document 3: once).
  signup_credit_at       timestamptz,
  created_at             timestamptz not null default now(),
  updated_at             timestamptz not null default now()
);

-- Accounts of the ledger. An organisation holds at most one pay-as-you-go wallet (WALLET, US dollars; rupees for India numbers) and one plan wallet per currency; platform accounts
-- have no organisation and are named. `scale` is how many units make one minor unit: 1 for the pay-as-you-go wallet (cents),
-- 10000 for plan wallets, whose amounts carry up to 4 decimals of the minor unit.
create table ledger_accounts (
  id               char(24) primary key,
  organisation_id  char(24) references organisations (id) on delete cascade,
  kind             text not null check (kind in ('WALLET', 'PLAN_WALLET', 'PLATFORM')),
  name             text not null,
  currency         text not null check (currency ~ '^[A-Z]{3}$'),
  scale            integer not null check (scale in (1, 10000)),
  -- Wallets only: the sum of the account's entries, kept in step by every posting (and checked by the tests).
  balance          bigint not null default 0,
  has_paid         boolean not null default false,
  created_at       timestamptz not null default now(),
  updated_at       timestamptz not null default now(),
  check ((kind = 'PLATFORM') = (organisation_id is null)),
  check (kind = 'PLATFORM' or balance >= 0)
);
create unique index ledger_accounts_wallet on ledger_accounts (organisation_id) where kind = 'WALLET';
-- One plan wallet per currency: an organisation whose billing country moves between India and elsewhere (allowed
-- while its plan wallet is empty) gets a plan wallet in the new currency; the old one keeps its history.
create unique index ledger_accounts_plan_wallet on ledger_accounts (organisation_id, currency) where kind = 'PLAN_WALLET';
create unique index ledger_accounts_platform on ledger_accounts (name, currency, scale) where organisation_id is null;

create table ledger_transactions (
  id               char(24) primary key,
  organisation_id  char(24) not null references organisations (id) on delete cascade,
  type             text not null check (type in ('CREDIT', 'DEBIT', 'REFUND', 'ADJUSTMENT')),
  -- What it is for: VOICE_CALL, CHATBOT_MESSAGE, RECORDING, NUMBER_RENTAL, TOP_UP, SIGNUP_CREDIT, PLAN_CYCLE,
  -- GRANT_EXPIRY, ADJUSTMENT, REVERSAL.
  reference_type   text not null check (reference_type ~ '^[A-Z_]{2,40}$'),
  reference_id     text,
  description      text not null check (length(description) between 1 and 500),
  -- Who made it: an operator's name, `parley start (bootstrap)`, `metering`, `payments`.
  actor            text not null check (length(actor) between 1 and 200),
  -- The transaction this one reverses; each is reversed at most once.
  reverses_id      char(24) unique references ledger_transactions (id),
  -- The same effect requested again (an event or webhook delivered twice, a retried command) finds this row.
  idempotency_key  text not null unique check (length(idempotency_key) between 1 and 300),
  created_at       timestamptz not null default now()
);
create index ledger_transactions_organisation on ledger_transactions (organisation_id, created_at desc, id desc);

-- Plan-wallet money, spent earliest-expiring first: the allowance of a plan cycle (until the next refresh), a
-- top-up (365 days), the sign-up credit. `remaining` is the projection of the entries that name the grant.
create table wallet_grants (
  id               char(24) primary key,
  organisation_id  char(24) not null references organisations (id) on delete cascade,
  account_id       char(24) not null references ledger_accounts (id) on delete cascade,
  source           text not null check (source in ('PLAN_CYCLE', 'TOP_UP', 'SIGNUP_CREDIT')),
  amount           bigint not null check (amount > 0),
  remaining        bigint not null check (remaining >= 0 and remaining <= amount),
  expires_at       timestamptz not null,
  -- Deferred: a posting writes its grant, then its transaction and entries in one statement (ledger-repository.ts).
  transaction_id   char(24) not null references ledger_transactions (id) on delete cascade deferrable initially deferred,
  created_at       timestamptz not null default now()
);
create index wallet_grants_spendable on wallet_grants (account_id, expires_at) where remaining > 0;

create table ledger_entries (
  id               char(24) primary key,
  transaction_id   char(24) not null references ledger_transactions (id) on delete cascade,
  account_id       char(24) not null references ledger_accounts (id) on delete cascade,
  amount           bigint not null check (amount <> 0),
  -- Wallet entries: the account's balance right after this entry.
  balance_after    bigint,
  grant_id         char(24) references wallet_grants (id) on delete cascade,
  created_at       timestamptz not null default now()
);
create index ledger_entries_transaction on ledger_entries (transaction_id);
create index ledger_entries_account on ledger_entries (account_id, created_at);

-- The journal is append-only: an update is refused, and a delete is only the cascade of an organisation's removal.
create function ledger_refuse_change() returns trigger language plpgsql as $$
begin
  if tg_op = 'DELETE' and pg_trigger_depth() > 1 then
    return old;
  end if;
  raise exception 'the ledger is append-only: % on % is refused (correct a mistake with a reversing transaction)',
    tg_op, tg_table_name using errcode = 'P0001';
end $$;
create trigger ledger_transactions_append_only before update or delete on ledger_transactions
  for each row execute function ledger_refuse_change();
create trigger ledger_entries_append_only before update or delete on ledger_entries
  for each row execute function ledger_refuse_change();

-- At commit, each transaction's entries sum to zero and stay within one currency and scale.
create function ledger_check_balanced() returns trigger language plpgsql as $$
declare
  total numeric;
  kinds integer;
begin
  select coalesce(sum(e.amount), 0), count(distinct (a.currency, a.scale))
    into total, kinds
    from ledger_entries e join ledger_accounts a on a.id = e.account_id
   where e.transaction_id = new.transaction_id;
  if total <> 0 or kinds <> 1 then
    raise exception 'ledger transaction % is unbalanced (sum %, % currencies)', new.transaction_id, total, kinds
      using errcode = 'P0001';
  end if;
  return null;
end $$;
create constraint trigger ledger_entries_balanced after insert on ledger_entries
  deferrable initially deferred for each row execute function ledger_check_balanced();

-- The existing pay-as-you-go wallets and the operator adjustments (the bootstrap credit among them) move into the
-- ledger: each adjustment becomes an ADJUSTMENT transaction against the platform's adjustments account, and a
-- balance its adjustments do not explain (set before adjustments were journaled) gets one opening ADJUSTMENT.
insert into ledger_accounts (id, organisation_id, kind, name, currency, scale, balance, has_paid, created_at, updated_at)
select w.id, w.organisation_id, 'WALLET', 'wallet', w.currency, 1, w.balance_minor, w.has_paid, w.updated_at, w.updated_at
  from wallet_balances w;

insert into ledger_accounts (id, organisation_id, kind, name, currency, scale)
select distinct on (currency) substr(md5('platform.adjustments.' || currency), 1, 24), null, 'PLATFORM', 'adjustments', currency, 1
  from wallet_balances;

with opening as (
  select w.organisation_id, w.currency, w.balance_minor - coalesce(sum(a.amount_minor), 0) as unexplained,
         w.id as account_id
    from wallet_balances w left join wallet_adjustments a on a.organisation_id = w.organisation_id
   group by w.organisation_id, w.currency, w.balance_minor, w.id
), journal as (
  select substr(md5('opening.' || o.organisation_id), 1, 24) as id, o.organisation_id, o.currency, o.unexplained as amount,
         o.unexplained as balance_after, 'Opening balance carried over from before the ledger' as reason,
         'migration 010' as actor,
         coalesce((select min(a.created_at) from wallet_adjustments a where a.organisation_id = o.organisation_id),
                  now()) - interval '1 second' as created_at,
         o.account_id
    from opening o where o.unexplained <> 0
  union all
  select a.id, a.organisation_id, a.currency, a.amount_minor,
         a.balance_after_minor + coalesce((select o.unexplained from opening o where o.organisation_id = a.organisation_id), 0),
         a.reason, a.actor, a.created_at, w.id
    from wallet_adjustments a join wallet_balances w on w.organisation_id = a.organisation_id
), transactions as (
  insert into ledger_transactions (id, organisation_id, type, reference_type, reference_id, description, actor,
                                   idempotency_key, created_at)
  select j.id, j.organisation_id, 'ADJUSTMENT', 'ADJUSTMENT', null, j.reason, j.actor, 'migrated:' || j.id,
         j.created_at
    from journal j
  returning id
)
insert into ledger_entries (id, transaction_id, account_id, amount, balance_after, created_at)
select substr(md5('wallet.' || j.id), 1, 24), j.id, j.account_id, j.amount, j.balance_after, now() from journal j
union all
select substr(md5('platform.' || j.id), 1, 24), j.id, substr(md5('platform.adjustments.' || j.currency), 1, 24),
       -j.amount, null, now()
  from journal j;

insert into billing_accounts (organisation_id)
select id from organisations on conflict do nothing;

drop table wallet_adjustments;
drop table wallet_balances;

-- Rate card (spec document 1): prices by product line, tier and currency, from a date. Prices are minor units with
-- 4 decimals (units of 1/10000 of a cent or paisa: 50000 is 5 cents). A new price is a new row with a later
-- effective_from. Seeded: a call minute 5 cents (Pro 4) or 3.50 rupees (Pro 2.80); a chat reply 0.5 cent or 0.40
-- rupee; a number 2 dollars or 500 rupees a month; a plain phone line minute 1.5 cents, or 50 paise in 30-second
-- blocks (spec document 2, managed numbers: the rupee number and line prices are the same on every tier).
create table rate_card_lines (
  id               char(24) primary key,
  key              text not null check (key in ('ai_phone_call_minute', 'ai_web_chat_reply', 'number_rental_month', 'phone_line_minute')),
  label            text not null,
  unit             text not null check (unit in ('MINUTE', 'REPLY', 'MONTH')),
  price_e4         bigint not null check (price_e4 >= 0),
  currency         text not null check (currency ~ '^[A-Z]{3}$'),
  tier             text not null check (tier in ('STARTER', 'PRO')),
  pulse_seconds    integer not null default 60 check (pulse_seconds between 1 and 3600),
  minimum_seconds  integer not null default 0 check (minimum_seconds between 0 and 3600),
  managed_only     boolean not null default false,
  effective_from   timestamptz not null,
  unique (key, currency, tier, effective_from)
);

insert into rate_card_lines (id, key, label, unit, price_e4, currency, tier, pulse_seconds, minimum_seconds, managed_only, effective_from)
values
  ('ca0000000000000000000001', 'ai_phone_call_minute', 'AI phone call, per minute', 'MINUTE',  50000, 'USD', 'STARTER', 6, 6,  false, '2026-01-01T00:00:00Z'),
  ('ca0000000000000000000002', 'ai_web_chat_reply',    'AI web chat, per reply',    'REPLY',    5000, 'USD', 'STARTER', 1, 0,  false, '2026-01-01T00:00:00Z'),
  ('ca0000000000000000000003', 'number_rental_month',  'Phone number, per month',   'MONTH', 2000000, 'USD', 'STARTER', 1, 0,  true,  '2026-01-01T00:00:00Z'),
  ('ca0000000000000000000004', 'phone_line_minute',    'Phone line, per minute',    'MINUTE',  15000, 'USD', 'STARTER', 60, 60, true,  '2026-01-01T00:00:00Z'),
  ('ca0000000000000000000005', 'ai_phone_call_minute', 'AI phone call, per minute', 'MINUTE',  40000, 'USD', 'PRO',     6, 6,  false, '2026-01-01T00:00:00Z'),
  ('ca0000000000000000000006', 'ai_web_chat_reply',    'AI web chat, per reply',    'REPLY',    4000, 'USD', 'PRO',     1, 0,  false, '2026-01-01T00:00:00Z'),
  ('ca0000000000000000000007', 'number_rental_month',  'Phone number, per month',   'MONTH', 1500000, 'USD', 'PRO',     1, 0,  true,  '2026-01-01T00:00:00Z'),
  ('ca0000000000000000000008', 'phone_line_minute',    'Phone line, per minute',    'MINUTE',  12000, 'USD', 'PRO',     60, 60, true,  '2026-01-01T00:00:00Z'),
  ('ca0000000000000000000009', 'ai_phone_call_minute', 'AI phone call, per minute', 'MINUTE', 3500000, 'INR', 'STARTER', 6, 6,  false, '2026-01-01T00:00:00Z'),
  ('ca0000000000000000000010', 'ai_web_chat_reply',    'AI web chat, per reply',    'REPLY',  400000, 'INR', 'STARTER', 1, 0,  false, '2026-01-01T00:00:00Z'),
  ('ca0000000000000000000011', 'number_rental_month',  'Phone number, per month',   'MONTH', 500000000, 'INR', 'STARTER', 1, 0, true, '2026-01-01T00:00:00Z'),
  ('ca0000000000000000000012', 'phone_line_minute',    'Phone line, per minute',    'MINUTE',  500000, 'INR', 'STARTER', 30, 30, true,  '2026-01-01T00:00:00Z'),
  ('ca0000000000000000000013', 'ai_phone_call_minute', 'AI phone call, per minute', 'MINUTE', 2800000, 'INR', 'PRO',     6, 6,  false, '2026-01-01T00:00:00Z'),
  ('ca0000000000000000000014', 'ai_web_chat_reply',    'AI web chat, per reply',    'REPLY',  300000, 'INR', 'PRO',     1, 0,  false, '2026-01-01T00:00:00Z'),
  ('ca0000000000000000000015', 'number_rental_month',  'Phone number, per month',   'MONTH', 500000000, 'INR', 'PRO',     1, 0, true, '2026-01-01T00:00:00Z'),
  ('ca0000000000000000000016', 'phone_line_minute',    'Phone line, per minute',    'MINUTE',  500000, 'INR', 'PRO',     30, 30, true,  '2026-01-01T00:00:00Z');

-- Plans of plan billing (spec document 1, Plan): a monthly fee that puts `allowance` in the plan wallet every 30
-- days. Amounts in minor units with 4 decimals (fixed point e4).
create table billing_plans (
  id                 char(24) primary key,
  code               text not null unique,
  tier               text not null check (tier in ('STARTER', 'PRO')),
  interval           text not null default 'MONTHLY' check (interval in ('MONTHLY')),
  currency           text not null check (currency ~ '^[A-Z]{3}$'),
  fee_e4             bigint not null check (fee_e4 >= 0),
  tax_inclusive      boolean not null default false,
  allowance_e4       bigint not null check (allowance_e4 >= 0),
  concurrent_calls   integer not null check (concurrent_calls between 1 and 10000),
  -- Calls a cycle may place; null: no count limit beyond what the wallet pays for.
  call_limit         integer check (call_limit > 0),
  top_up_presets     bigint[] not null,
  rail               text not null,
  is_active          boolean not null default true
);

insert into billing_plans (id, code, tier, currency, fee_e4, allowance_e4, concurrent_calls, call_limit, top_up_presets, rail)
values
  ('ba0000000000000000000001', 'starter_monthly_usd', 'STARTER', 'USD',   29000000,   29000000,  2, null, '{1000,2500,5000}',      'card'),
  ('ba0000000000000000000002', 'pro_monthly_usd',     'PRO',     'USD',   99000000,   99000000, 10, null, '{1000,2500,5000}',      'card'),
  ('ba0000000000000000000003', 'starter_monthly_inr', 'STARTER', 'INR', 2499000000, 2499000000,  2, null, '{100000,250000,500000}', 'upi_card'),
  ('ba0000000000000000000004', 'pro_monthly_inr',     'PRO',     'INR', 7999000000, 7999000000, 10, null, '{100000,250000,500000}', 'upi_card');

create table billing_subscriptions (
  id                   char(24) primary key,
  organisation_id      char(24) not null references organisations (id) on delete cascade,
  plan_id              char(24) not null references billing_plans (id),
  status               text not null check (status in ('PENDING', 'ACTIVE', 'PAST_DUE', 'CANCELLED')),
  current_period_start timestamptz not null,
  current_period_end   timestamptz not null,
  next_grant_at        timestamptz not null,
  cancel_at_period_end boolean not null default false,
  grace_until          timestamptz,
  -- A change decided now and applied at period end: { planId, effectiveAt }.
  scheduled_change     jsonb,
  checkout_url         text,
  created_at           timestamptz not null default now(),
  updated_at           timestamptz not null default now()
);
create unique index billing_subscriptions_live on billing_subscriptions (organisation_id) where status <> 'CANCELLED';

-- One usage record per billable thing (spec document 1, Usage record), exactly once: `idempotency_key` is the
-- call id for a voice call (so a call-ended event delivered twice meters once), the message id for a chat reply.
create table usage_records (
  id                 char(24) primary key,
  organisation_id    char(24) not null references organisations (id) on delete cascade,
  voice_session_id   char(24) references call_records (id) on delete set null,
  room_name          text,
  call_direction     text check (call_direction in ('INBOUND', 'OUTBOUND')),
  usage_type         text not null check (usage_type in ('VOICE_CALL', 'RECORDING', 'SMS', 'CREDIT', 'CHATBOT_MESSAGE', 'NUMBER_RENTAL')),
  duration_seconds   integer not null default 0 check (duration_seconds >= 0),
  billed_seconds     integer not null default 0 check (billed_seconds >= 0),
  message_count      integer not null default 0 check (message_count >= 0),
  -- The price applied, minor units e4 per the line's unit; the total charged, minor units of the wallet's scale.
  rate_e4            bigint not null check (rate_e4 >= 0),
  total_e4           bigint not null check (total_e4 >= 0),
  currency           text not null,
  -- The wallet that pays it: WALLET (pay-as-you-go) or PLAN_WALLET (plan billing), as the model was when metered.
  wallet             text not null check (wallet in ('WALLET', 'PLAN_WALLET')),
  start_time         timestamptz,
  end_time           timestamptz,
  billed             boolean not null default false,
  wallet_deducted    boolean not null default false,
  -- The debit that paid it; null while unpaid (the wallet could not pay: settled by the next credit).
  transaction_id     char(24) references ledger_transactions (id),
  idempotency_key    text not null unique,
  created_at         timestamptz not null default now()
);
create index usage_records_organisation on usage_records (organisation_id, created_at desc);
create index usage_records_unpaid on usage_records (organisation_id, created_at) where not wallet_deducted and total_e4 > 0;

-- Top-up quotes (POST /billing/topup-quote): signed, valid 10 minutes, usable once (used_at).
create table topup_quotes (
  id                 char(24) primary key,
  organisation_id    char(24) not null references organisations (id) on delete cascade,
  billing_country    text not null,
  wallet_credit_minor bigint not null check (wallet_credit_minor > 0),
  wallet_currency    text not null,
  wallet_credit_usd_minor bigint not null check (wallet_credit_usd_minor > 0),
  total_minor        bigint not null check (total_minor > 0),
  charge_currency    text not null,
  body               jsonb not null,
  expires_at         timestamptz not null,
  used_at            timestamptz,
  created_at         timestamptz not null default now()
);

-- Payments at the processor: a pay-as-you-go top-up order or a plan-billing top-up. The wallet is credited only
-- when the processor's signed webhook says the payment was captured (credited_transaction_id, once).
create table payments (
  id                 char(24) primary key,
  organisation_id    char(24) not null references organisations (id) on delete cascade,
  kind               text not null check (kind in ('WALLET_TOPUP', 'PLAN_TOPUP', 'PLAN_SUBSCRIPTION')),
  quote_id           char(24) unique references topup_quotes (id),
  status             text not null check (status in ('PENDING', 'PAID', 'FAILED', 'EXPIRED')),
  gateway            text not null,
  pg_order_id        text unique,
  pg_payment_id      text unique,
  -- What the payer is charged, minor units of charge_currency.
  charge_minor       bigint not null check (charge_minor > 0),
  charge_currency    text not null,
  -- What the wallet receives once paid, minor units of the wallet's scale and currency.
  credit_amount      bigint not null check (credit_amount > 0),
  credit_currency    text not null,
  billing_country    text not null,
  return_url         text,
  created_by_id      char(24) references users (id),
  credited_transaction_id char(24) references ledger_transactions (id),
  created_at         timestamptz not null default now(),
  updated_at         timestamptz not null default now()
);
create index payments_pending on payments (organisation_id) where status = 'PENDING';

-- Every webhook the processor delivered, signed or not, for the audit (an unsigned one changes nothing).
create table payment_webhook_events (
  id                 char(24) primary key,
  gateway            text not null,
  event_id           text,
  event_type         text,
  signature_valid    boolean not null,
  outcome            text not null,
  payload            jsonb,
  received_at        timestamptz not null default now()
);
create unique index payment_webhook_events_once on payment_webhook_events (gateway, event_id) where signature_valid and event_id is not null;
