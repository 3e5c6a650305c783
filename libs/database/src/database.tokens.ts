/** The embedded PGlite server when DATABASE_URL is unset, else null. */
export const EMBEDDED_POSTGRES = Symbol('EMBEDDED_POSTGRES');

/** Optional `DatabaseHealthOptions` overriding the `/health` probe budgets. */
export const DATABASE_HEALTH_OPTIONS = Symbol('DATABASE_HEALTH_OPTIONS');

/** Optional `BackgroundGateOptions` (tests). */
export const BACKGROUND_GATE_OPTIONS = Symbol('BACKGROUND_GATE_OPTIONS');
