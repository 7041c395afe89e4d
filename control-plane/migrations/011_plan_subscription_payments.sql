-- A plan bought at the checkout (POST /billing/subscriptions): the payment names the plan; the subscription starts
-- when the processor's signed webhook confirms the payment (docs/architecture.md §10).
alter table payments add column plan_id char(24) references billing_plans (id);
alter table payments add constraint payments_plan_named check (kind <> 'PLAN_SUBSCRIPTION' or plan_id is not null);
