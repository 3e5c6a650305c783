/** The embedded PGlite server when DATABASE_URL is unset, else null. */
export const EMBEDDED_POSTGRES = Symbol('EMBEDDED_POSTGRES');
