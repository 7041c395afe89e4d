-- MCP sign-in (OAuth 2.1, docs/architecture.md §17): passwords for the browser login, the audience of keys issued
-- to AI hosts, registered clients, pending authorizations (with their single-use code), connected hosts (grants)
-- with their rotating refresh tokens, and browser sessions.

-- scrypt, in the self-describing form of src/oauth/password.ts; null for users who never set one (they cannot log in
-- with a password until they do).
alter table users add column password_hash text;

-- The resource (RFC 8707) a key issued through OAuth is for; null for keys made by hand, which work everywhere.
alter table api_keys add column audience text;

-- Clients registered by dynamic client registration (RFC 7591). Clients identified by a metadata document URL are
-- not stored here: their document is fetched (and cached in memory).
create table oauth_clients (
  id             text primary key,
  client_name    text not null,
  redirect_uris  text[] not null,
  client_uri     text,
  created_at     timestamptz not null default now()
);

-- One authorization request from /oauth/authorize to its code exchange. The code is stored as a SHA-256; it is
-- spent by setting code_used_at (once), and a second use revokes the grant the first one made.
create table oauth_authorizations (
  id               char(24) primary key,
  client_id        text not null,
  client_name      text not null,
  redirect_uri     text not null,
  code_challenge   text not null,
  state            text,
  scopes           text[] not null,
  resource         text not null,
  user_id          char(24) references users (id),
  organisation_id  char(24) references organisations (id) on delete cascade,
  code_hash        char(64) unique,
  code_expires_at  timestamptz,
  code_used_at     timestamptz,
  expires_at       timestamptz not null,
  created_at       timestamptz not null default now()
);
create index oauth_authorizations_expiry_idx on oauth_authorizations (expires_at);

-- A connected AI host: the API key it holds now (replaced on every refresh) and who approved it.
create table oauth_grants (
  id                char(24) primary key,
  organisation_id   char(24) not null references organisations (id) on delete cascade,
  user_id           char(24) not null references users (id),
  client_id         text not null,
  client_name       text not null,
  scopes            text[] not null,
  resource          text not null,
  key_id            char(24) not null references api_keys (id) on delete cascade,
  authorization_id  char(24) unique references oauth_authorizations (id) on delete set null,
  created_at        timestamptz not null default now(),
  revoked_at        timestamptz
);
create index oauth_grants_user_idx on oauth_grants (user_id) where revoked_at is null;

-- Refresh tokens (SHA-256). The current one has used_at null; a used one presented again revokes its grant.
create table oauth_refresh_tokens (
  token_hash  char(64) primary key,
  grant_id    char(24) not null references oauth_grants (id) on delete cascade,
  created_at  timestamptz not null default now(),
  used_at     timestamptz
);
create index oauth_refresh_tokens_grant_idx on oauth_refresh_tokens (grant_id);

-- Browser sessions of the login pages (the cookie holds the token; only its SHA-256 is stored).
create table browser_sessions (
  token_hash  char(64) primary key,
  user_id     char(24) not null references users (id),
  created_at  timestamptz not null default now(),
  expires_at  timestamptz not null
);
create index browser_sessions_user_idx on browser_sessions (user_id);
