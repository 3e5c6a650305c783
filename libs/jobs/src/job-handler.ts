import { DiscoveryService } from '@nestjs/core';
import type { JobName, JobPayload } from './job-catalog.js';
import type { JobContext } from './job.types.js';

/** What a job's handler provider implements; `N` ties it to its catalog entry's payload. */
export interface JobRunner<N extends JobName> {
  run(ctx: JobContext<JobPayload<N>>): Promise<void>;
  /** Whether the catalog's default schedule applies in this process (default true), e.g. only with an LLM. */
  isScheduled?(): boolean;
}

/**
 * Marks a provider as the handler of a catalogued job: `@JobHandler('sessions.repair')`. The class
 * must be listed in its module's providers; JobsService discovers it at boot.
 */
export const JobHandler = DiscoveryService.createDecorator<JobName>();

export interface DiscoveredHandler {
  name: string;
  /** Where it was found (class name, module) for the boot error. */
  source: string;
  runner: JobRunner<JobName>;
}

export class JobRegistryError extends Error {
  constructor(readonly problems: string[]) {
    super(`Job registry is inconsistent: ${problems.join('; ')}`);
    this.name = 'JobRegistryError';
  }
}

/**
 * The boot check: every catalogued name has exactly one handler and no handler names an unknown job.
 * Returns the handler per name; throws JobRegistryError naming every problem otherwise.
 */
export function bindJobHandlers(names: readonly string[], found: readonly DiscoveredHandler[]): Map<string, DiscoveredHandler> {
  const problems: string[] = [];
  const bound = new Map<string, DiscoveredHandler>();
  const known = new Set(names);
  for (const handler of found) {
    if (!known.has(handler.name)) {
      problems.push(`${handler.source} handles unknown job "${handler.name}"`);
      continue;
    }
    const first = bound.get(handler.name);
    if (first) problems.push(`job "${handler.name}" has more than one handler (${first.source}, ${handler.source})`);
    else bound.set(handler.name, handler);
  }
  for (const name of names) if (!bound.has(name)) problems.push(`job "${name}" has no handler`);
  if (problems.length) throw new JobRegistryError(problems);
  return bound;
}
