import { Injectable } from '@nestjs/common';
import { JobHandler, type JobContext, type JobName, type JobRunner } from '@arbiter/jobs';
import { ActionMemoryRepository } from './action-memory.repository.js';
import { KnowledgeImportRepository } from './knowledge-import.repository.js';

export const MEMORY_EXPIRY_JOB = 'retrieval.memory-expiry' satisfies JobName;

export const MEMORY_EXPIRY_BATCH = 5000;

/** How long a finished import's per-item outcomes stay readable (GET /admin/knowledge/imports/:id). */
export const IMPORT_RETENTION_MS = 7 * 24 * 3600 * 1000;

/** `retrieval.memory-expiry`: deletes the tenant's expired action-memory rows in batches, and imports older than a week. */
@Injectable()
@JobHandler(MEMORY_EXPIRY_JOB)
export class MemoryExpiryJob implements JobRunner<typeof MEMORY_EXPIRY_JOB> {
  constructor(
    private readonly memory: ActionMemoryRepository,
    private readonly imports: KnowledgeImportRepository,
  ) {}

  async run(ctx: JobContext): Promise<void> {
    await ctx.step(() => this.imports.purgeBefore(ctx.tenantId, new Date(Date.now() - IMPORT_RETENTION_MS)));
    for (;;) {
      const deleted = await ctx.step(() => this.memory.purgeExpired(ctx.tenantId, MEMORY_EXPIRY_BATCH));
      if (deleted) await ctx.progress({ processed: deleted });
      if (deleted < MEMORY_EXPIRY_BATCH) return;
    }
  }
}
