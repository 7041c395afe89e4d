-- Knowledge bases and product catalogues (spec document 1 "Knowledge document", "Catalogue"; docs/architecture.md §14).

-- A knowledge document: what the caller uploaded, processed in the background into chunks.
create table knowledge_documents (
  id               char(24) primary key,
  organisation_id  char(24) not null references organisations (id) on delete cascade,
  name             text not null,
  description      text,
  status           text not null default 'processing' check (status in ('processing', 'ready', 'error')),
  error            text,
  -- text, file or mixed (both sent)
  source_type      text not null check (source_type in ('text', 'file', 'mixed')),
  file_count       integer not null default 0,
  chunk_count      integer,
  -- The text search configuration its chunks are indexed and searched with (english, french, simple, …).
  language         text not null default 'english',
  created_at       timestamptz not null default now(),
  updated_at       timestamptz not null default now()
);
create index knowledge_documents_by_organisation on knowledge_documents (organisation_id, created_at desc);

-- The uploaded material, kept only until the document is processed (a retried job reads it again).
create table knowledge_sources (
  document_id  char(24) not null references knowledge_documents (id) on delete cascade,
  position     integer not null,
  file_name    text not null,
  -- text (the form's text field), pdf, docx, txt, md, csv, json
  kind         text not null,
  content      bytea not null,
  primary key (document_id, position)
);

-- The processing job, one per document, leased like the post-call analysis jobs.
create table knowledge_jobs (
  document_id      char(24) primary key references knowledge_documents (id) on delete cascade,
  status           text not null default 'pending' check (status in ('pending', 'done', 'failed')),
  attempts         integer not null default 0,
  next_attempt_at  timestamptz not null default now(),
  lease_token      text,
  last_error       text,
  created_at       timestamptz not null default now()
);
create index knowledge_jobs_due on knowledge_jobs (next_attempt_at) where status = 'pending';

-- The searchable pieces of a document. `search` is built at insert with the document's configuration:
-- the heading weighs A, the text B.
create table knowledge_chunks (
  id               bigint generated always as identity primary key,
  document_id      char(24) not null references knowledge_documents (id) on delete cascade,
  organisation_id  char(24) not null,
  position         integer not null,
  heading          text not null default '',
  content          text not null,
  search           tsvector not null
);
create index knowledge_chunks_search on knowledge_chunks using gin (search);
create index knowledge_chunks_by_document on knowledge_chunks (document_id, position);

-- How many of a document's chunks hold each word (stemmed): a search looks up its words here to tell the rare
-- ones, which pick the candidates, from the common ones, which would make every chunk a candidate
-- (knowledge/search-repository.ts). "C" collation, so a prefix is a range of the primary key.
create table knowledge_lexemes (
  document_id  char(24) not null references knowledge_documents (id) on delete cascade,
  lexeme       text collate "C" not null,
  chunks       integer not null,
  primary key (document_id, lexeme)
);

-- Catalogues: upload catalogues are fed by a product file (.csv or .json) parsed within the upload request.
create table catalogues (
  id               char(24) primary key,
  organisation_id  char(24) not null references organisations (id) on delete cascade,
  integration_type text not null,
  external_id      text not null,
  name             text not null,
  base_url         text not null,
  is_active        boolean not null default true,
  restaurant_id    text,
  outlet_id        text,
  status           text not null default 'processing' check (status in ('processing', 'ready', 'failed')),
  last_sync_at     timestamptz,
  last_sync_status text,
  last_sync_error  text,
  created_at       timestamptz not null default now(),
  updated_at       timestamptz not null default now(),
  unique (organisation_id, integration_type, external_id)
);

create table catalogue_products (
  id                 bigint generated always as identity primary key,
  catalogue_id       char(24) not null references catalogues (id) on delete cascade,
  product_id         text not null,
  name               text not null,
  category_path      text[] not null default '{}',
  -- In the currency's major unit, as the feed gives it (a catalogue price, not money moved: §7.6 is for ledgers).
  price              numeric(14, 4),
  currency           text,
  in_stock           boolean not null default true,
  short_description  text not null default '',
  attributes         jsonb not null default '{}',
  search             tsvector not null,
  unique (catalogue_id, product_id)
);
create index catalogue_products_search on catalogue_products using gin (search);

-- Embeddings, where the database has a vector type (embedded PGlite loads pgvector; a server may lack it): the
-- column is there only then, and search is hybrid only when it is (knowledge/embeddings/vector-support.ts).
do $$
begin
  if to_regtype('vector') is null and not exists (select 1 from pg_extension where extname = 'vector')
     and exists (select 1 from pg_available_extensions where name = 'vector') then
    create extension vector;
  end if;
  -- Installed into another schema (another installation sharing the database), the type is not ours to use.
  if to_regtype('vector') is not null then
    alter table knowledge_chunks add column embedding vector;
  end if;
end
$$;
