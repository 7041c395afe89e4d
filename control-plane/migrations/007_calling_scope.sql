-- Where each number may call (control-plane/src/calls/calling-scope.ts): SAME_COUNTRY unless the organisation widens
-- it; allowed_countries (ISO 3166 alpha-2) counts only with ALLOWED_COUNTRIES.
alter table phone_numbers
  add column calling_scope     text not null default 'SAME_COUNTRY' check (calling_scope in ('SAME_COUNTRY', 'ALLOWED_COUNTRIES', 'ANY')),
  add column allowed_countries text[] not null default '{}' check (array_position(allowed_countries, null) is null);

-- Scheduled calls come due in time order; the scheduler reads only those still waiting.
create index call_records_due_idx on call_records (scheduled_time) where scheduled_status = 'PENDING';

-- A carrier's webhooks about inbound calls name the call by the carrier's id of it (carrier-a's hangup_url).
create index call_records_carrier_call_idx on call_records ((meta_data ->> 'carrierCallSid')) where meta_data ? 'carrierCallSid';
