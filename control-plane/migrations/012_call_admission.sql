-- Call admission (billing/call-admission.ts): each placement counts the organisation's live calls under the lock of
-- its billing_accounts row, so this count runs on every call placed; the partial index keeps it to the few rows
-- that are live rather than the organisation's whole history.
create index call_records_live_by_organisation on call_records (organisation_id)
  where ended_at is null and call_status in ('QUEUED', 'INITIATED', 'RINGING', 'IN_PROGRESS');
