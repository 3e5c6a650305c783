import type { JobName } from '@arbiter/jobs';

/** The knowledge import job: JSON documents and uploaded files (its own file, so the files code can queue it without an import cycle). */
export const IMPORT_JOB = 'retrieval.import' satisfies JobName;
