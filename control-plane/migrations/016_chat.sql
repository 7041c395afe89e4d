-- Chat conversations of the website widget (docs/architecture.md §15). A conversation is a call record with
-- call_type 'chat' (source 'widget', call_status null: it holds no line and no engine); its messages are
-- call_transcripts lines. This file adds what a call does not have: one row per visitor message answered, so a
-- retried message is answered and billed once, and the browser-call requests the widget's caps count.

-- One visitor message and its reply. The widget names each message (message_id); a retry carries the same name and
-- finds this row: answered → the same reply again, nothing billed; being answered → 409; failed or its claim lapsed
-- (the instance answering it died) → answered anew.
create table chat_replies (
  id               char(24) primary key,
  organisation_id  char(24) not null references organisations (id) on delete cascade,
  call_id          char(24) not null references call_records (id) on delete cascade,
  message_id       text not null check (length(message_id) between 1 and 64),
  visitor_text     text not null,
  status           text not null default 'answering' check (status in ('answering', 'answered', 'failed')),
  reply_text       text,
  -- The usage record of the reply (usage_type CHATBOT_MESSAGE, key chat-reply:<id>): one per reply, ever.
  usage_id         char(24) references usage_records (id) on delete set null,
  -- Until when the instance answering holds the message; past it another may answer it.
  claimed_until    timestamptz not null,
  failure          text,
  created_at       timestamptz not null default now(),
  answered_at      timestamptz,
  unique (call_id, message_id)
);

-- Browser voice calls requested through POST /widget/voice-session (spec document 3: 3 per phone number per
-- organisation per 24 hours, 10 per IP address without a number; 409 for the same request within seconds).
create table widget_call_requests (
  id               char(24) primary key,
  organisation_id  char(24) not null references organisations (id) on delete cascade,
  agent_id         char(24) not null references agents (id),
  -- The widget token's owner and the token: the duplicate window is per agent, visitor number and key owner.
  requested_by_id  char(24) references users (id) on delete set null,
  key_id           char(24),
  -- The visitor's number as digits (at least 8), or null when none was given (then the IP cap applies).
  phone_number     text,
  client_ip        text not null,
  created_at       timestamptz not null default now()
);
create index widget_call_requests_by_number on widget_call_requests (organisation_id, phone_number, created_at)
  where phone_number is not null;
create index widget_call_requests_by_ip on widget_call_requests (client_ip, created_at) where phone_number is null;
