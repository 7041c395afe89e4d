-- Managed number rentals (docs/architecture.md §10): numbers the service rents on its own carrier-a account for an
-- organisation on plan billing in India, paid a month ahead from its plan wallet (rate card line number_rental_month).
--   PENDING   asked of the carrier, not yet confirmed (a crash here is cleaned up by the rental job: released)
--   ACTIVE    paid through paid_through
--   UNPAID    a renewal the plan wallet could not pay; released after the grace period unless paid meanwhile
--   RELEASED  given back to the carrier (by the customer, or unpaid); FAILED: the carrier never rented it
create table number_rentals (
  id               char(24) primary key,
  organisation_id  char(24) not null references organisations (id) on delete cascade,
  phone_number     text not null,
  -- The organisation's phone_numbers row once rented; null while PENDING.
  phone_number_id  char(24) references phone_numbers (id) on delete set null,
  status           text not null check (status in ('PENDING', 'ACTIVE', 'UNPAID', 'RELEASED', 'FAILED')),
  currency         text not null check (currency ~ '^[A-Z]{3}$'),
  -- The monthly price the last period was charged at, minor units e4.
  monthly_price_e4 bigint not null check (monthly_price_e4 >= 0),
  -- Paid up to here (exclusive); the next period starts at it.
  paid_through     timestamptz,
  unpaid_since     timestamptz,
  released_at      timestamptz,
  release_reason   text,
  created_at       timestamptz not null default now(),
  updated_at       timestamptz not null default now()
);
-- One live rental per number: a number given back may be rented again later.
create unique index number_rentals_live_number on number_rentals (phone_number)
  where status in ('PENDING', 'ACTIVE', 'UNPAID');
create index number_rentals_organisation on number_rentals (organisation_id, created_at desc);
-- What the rental job visits: live rentals by when they fall due.
create index number_rentals_due on number_rentals (paid_through) where status in ('ACTIVE', 'UNPAID');
