-- Knowledge search speed (docs/architecture.md §14). A GIN index keeps new entries in a pending list that every
-- search reads from end to end until autovacuum — never, in embedded PGlite — merges it into the index: after a
-- large upload the list was 400 pages and most of a search's time. Writers now merge it as they commit
-- (knowledge/search-index-repository.ts); this merges what installations already hold. (Turning fastupdate off
-- instead made indexing 10,000 chunks take 13 s rather than under 2.)
select gin_clean_pending_list('knowledge_chunks_search'::regclass);
select gin_clean_pending_list('catalogue_products_search'::regclass);
