export * from './database.js';
export type * from '../generated/db.js';
export { sql, type Selectable, type Insertable, type Updateable, type RawBuilder, type Expression } from 'kysely';
export * from './keyset.js';
