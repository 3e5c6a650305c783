import { describe, expect, it } from '@jest/globals';
import { JOB_CATALOG, JOB_NAMES } from './job-catalog.js';
import { bindJobHandlers, JobRegistryError, type DiscoveredHandler } from './job-handler.js';
import { assertKnownScheduleNames, assertValidCron } from './schedule.js';

const handler = (name: string, source = `${name}-handler`): DiscoveredHandler => ({ name, source, runner: { run: async () => undefined } });

function problems(names: string[], found: DiscoveredHandler[]): string[] {
  try {
    bindJobHandlers(names, found);
    return [];
  } catch (error) {
    if (error instanceof JobRegistryError) return error.problems;
    throw error;
  }
}

describe('job registry boot check', () => {
  it('binds one handler per catalogued name', () => {
    const bound = bindJobHandlers(['a.one', 'b.two'], [handler('b.two'), handler('a.one')]);
    expect([...bound.keys()].sort()).toEqual(['a.one', 'b.two']);
  });

  it('fails on a name without a handler', () => {
    expect(problems(['a.one', 'b.two'], [handler('a.one')])).toEqual(['job "b.two" has no handler']);
  });

  it('fails on a name with two handlers, naming both', () => {
    expect(problems(['a.one'], [handler('a.one', 'First in AModule'), handler('a.one', 'Second in BModule')])).toEqual([
      'job "a.one" has more than one handler (First in AModule, Second in BModule)',
    ]);
  });

  it('fails on a handler for a job the catalog does not list', () => {
    expect(problems(['a.one'], [handler('a.one'), handler('z.stray', 'Stray')])).toEqual(['Stray handles unknown job "z.stray"']);
  });

  it('the catalog: names are <lib>.<job> of their owner, crons parse, attempts are positive', () => {
    for (const name of JOB_NAMES) {
      const spec: { owner: string; maxAttempts: number; cron?: string } = JOB_CATALOG[name];
      expect(name.startsWith(`${spec.owner}.`)).toBe(true);
      expect(spec.maxAttempts).toBeGreaterThan(0);
      if (spec.cron) expect(() => assertValidCron(spec.cron!)).not.toThrow();
    }
  });

  it('JOBS_SCHEDULES may only name catalogued jobs', () => {
    expect(() => assertKnownScheduleNames({ 'sessions.repair': 'off' }, JOB_NAMES)).not.toThrow();
    expect(() => assertKnownScheduleNames({ 'memory.expire': 'off' }, JOB_NAMES)).toThrow(/unknown jobs: memory.expire/);
  });
});
