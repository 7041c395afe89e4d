-- A carrier number's own concurrent-call cap (docs/architecture.md §13): how many calls may be live on the number at
-- once, over and above the organisation's plan (concurrentCalls). Null: the number has no cap of its own, as with
-- the carriers' numbers by default (they limit calls per account, not per number). Set by
-- PUT /telephony/numbers/{id}/call-limit; outbound placements count the number's live calls under its row lock
-- (their count reads call_records_live_by_organisation).
alter table phone_numbers
  add column max_concurrent_calls integer check (max_concurrent_calls between 1 and 10000);
