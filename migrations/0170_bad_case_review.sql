-- Bad-case review (libs/feedback, PUT /admin/bad-cases/:sessionId/review; docs/learning.md "Review"): an operator
-- records on a bad case its correct intent and/or its correct knowledge document, a note, and whether the case is
-- RESOLVED (and reopens it). The review extends the one row per bad case that accept-example writes: accept-example
-- sets intent, rule_id and example; the review sets intent, document_id, note, status and resolved_at; each upsert
-- names only its own columns, so neither clobbers the other's.
--
-- `intent` becomes nullable: a case can carry only a document (or a note). Readers of `bad_case_label.intent`
-- (docs/CONVENTIONS.md read models) skip or treat NULL as "no label".
--
-- `document_id` is a knowledge document of the same tenant (knowledge_document, retrieval lib) with NO foreign key,
-- checked when written and resolved when read (a deleted document reads as no document; the bad case is not
-- touched). Why not a foreign key: docs/SCALING.md requires every foreign key of a tenant table to carry tenant_id,
-- i.e. (tenant_id, document_id) -> knowledge_document (tenant_id, id); a plain one would block deleting a document
-- and CASCADE would delete the review, so only ON DELETE SET NULL (document_id) (PostgreSQL 15 column list) would do
-- — and Citus refuses SET NULL/SET DEFAULT on a foreign key that includes the distribution column ("SET NULL or SET
-- DEFAULT is not supported in ON DELETE operation when distribution key is included in the foreign key constraint",
-- citusdata/citus src/backend/distributed/commands/foreign_constraint.c), column list or not. The table would stop
-- being distributable. Also, the retrieval lib would then write feedback's table (docs/CONVENTIONS.md "Table
-- ownership"). So: no foreign key, and no index on it (nothing looks a review up by document).
ALTER TABLE bad_case_label
  ALTER COLUMN intent DROP NOT NULL,
  ADD COLUMN document_id uuid,
  ADD COLUMN note text,
  ADD COLUMN status varchar(10) NOT NULL DEFAULT 'OPEN',
  ADD COLUMN resolved_at timestamptz,
  ADD CONSTRAINT chk_bad_case_label_status CHECK (status IN ('OPEN', 'RESOLVED')),
  ADD CONSTRAINT chk_bad_case_label_resolved_at CHECK ((status = 'RESOLVED') = (resolved_at IS NOT NULL)),
  ADD CONSTRAINT chk_bad_case_label_note_length CHECK (char_length(note) <= 1000);
