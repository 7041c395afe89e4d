-- Chat conversations end (docs/architecture.md §15): closed by the visitor, or idle for CHAT_IDLE_END_MS. A reply
-- stamps its conversation's updated_at; the idle sweep looks for open conversations not stamped for that long, and
-- this index keeps that look a short range scan however many calls the table holds.
create index call_records_open_chats on call_records (updated_at) where call_type = 'chat' and ended_at is null;
