-- A document made from a large file is written in groups of chunks, each group a short transaction, so that the
-- write does not hold the embedded database's one backend for the whole file (docs/hot-paths.md "A large file's
-- write in groups"). Until its last group is in, `writing` hides it: lookups skip its chunks and postings, the
-- document endpoints do not show it, and its postings do not count in the tenant's BM25 statistics. Its index is
-- migration 0264 (one statement a migration on a distributed table, docs/SCALING.md "Running on Citus").
ALTER TABLE knowledge_document ADD COLUMN writing boolean NOT NULL DEFAULT false;
