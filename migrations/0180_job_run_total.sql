-- Job run totals (libs/jobs; docs/FOUNDATION.md "Jobs"): how many items a run will process, when its handler knows
-- it (JobContext.progress({ total }) / setTotal), so GET /admin/jobs can draw a progress bar. NULL when the handler
-- never reports one. The jobs framework keeps it at or above `processed` (GREATEST on every write), so a run never
-- shows more done than its total; a resumed attempt keeps the stored total and may recount it.
ALTER TABLE job_run
  ADD COLUMN total integer,
  ADD CONSTRAINT chk_job_run_total CHECK (total >= 0);
