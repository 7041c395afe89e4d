-- Operator adjustments of an organisation's wallet (the bootstrap organisation's first-start credit, `parley org
-- create --credit`): each one an immutable row written in the same transaction as the balance it moves, with who
-- made it and why. The billing ledger takes these rows over as its ADJUSTMENT entries.
create table wallet_adjustments (
  id                  char(24) primary key,
  organisation_id     char(24) not null references organisations (id) on delete cascade,
  amount_minor        bigint not null check (amount_minor <> 0),
  currency            text not null check (currency ~ '^[A-Z]{3}$'),
  balance_after_minor bigint not null,
  reason              text not null check (length(reason) between 1 and 500),
  actor               text not null check (length(actor) between 1 and 200),
  created_at          timestamptz not null default now()
);

create index wallet_adjustments_organisation on wallet_adjustments (organisation_id, created_at);
