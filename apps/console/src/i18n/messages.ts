import type { Language } from './language';
import { en, type MessageKey } from './messages/en';
import { zh } from './messages/zh';

export type { MessageKey };

/**
 * The message key naming an API code (a job status, a decision reason, a failure layer); null for a code this
 * console does not know yet, which is then shown as the API names it.
 */
export function codeKey(kind: 'jobStatus' | 'reason' | 'layer' | 'files.status', code: string): MessageKey | null {
  const key = `${kind}.${code}`;
  return key in en ? (key as MessageKey) : null;
}

/** One file a language (messages/en.ts, messages/zh.ts); English is the reference the Chinese table is typed against. */
export const MESSAGES: Record<Language, Record<MessageKey, string>> = { en, zh };
