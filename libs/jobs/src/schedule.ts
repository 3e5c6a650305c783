import { CronTime } from 'cron';

/** Parses JOBS_SCHEDULES: a JSON object `{ "<job name>": "<cron>" | "off" }`. */
export function parseScheduleOverrides(raw: string | undefined): Record<string, string> {
  if (!raw) return {};
  const parsed: unknown = JSON.parse(raw);
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('JOBS_SCHEDULES must be a JSON object');
  const out: Record<string, string> = {};
  for (const [name, cron] of Object.entries(parsed)) {
    if (typeof cron !== 'string') throw new Error(`JOBS_SCHEDULES.${name} must be a cron string or "off"`);
    if (cron !== 'off') assertValidCron(cron);
    out[name] = cron;
  }
  return out;
}

/** A JOBS_SCHEDULES entry must name a catalogued job (a typo would otherwise silently keep the default). */
export function assertKnownScheduleNames(overrides: Record<string, string>, names: readonly string[]): void {
  const unknown = Object.keys(overrides).filter((name) => !names.includes(name));
  if (unknown.length) throw new Error(`JOBS_SCHEDULES names unknown jobs: ${unknown.join(', ')} (jobs: ${names.join(', ')})`);
}

export function assertValidCron(cron: string): void {
  try {
    new CronTime(cron, 'UTC');
  } catch (error) {
    throw new Error(`Invalid cron expression "${cron}": ${(error as Error).message}`, { cause: error });
  }
}

/** The first tick strictly after `from`. Every replica computes the same ticks, so the slot is a shared key. */
export function nextTick(cron: string, from: Date): Date {
  return new CronTime(cron, 'UTC').getNextDateFrom(from).toJSDate();
}
