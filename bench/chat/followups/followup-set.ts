/** The labelled follow-up set of followups.json (README.md beside this file says where it came from). */
import { readFileSync } from 'node:fs';
import path from 'node:path';

export interface FollowUpItem {
  id: string;
  language: 'en' | 'zh';
  /** The conversation's first question. */
  first: string;
  /** The Debian Reference section that answers the first question. */
  firstAnswer: string;
  followUp: string;
  /** The section that answers the follow-up. */
  answer: string;
}

export function readFollowUpSet(file = path.resolve('bench/chat/followups/followups.json')): FollowUpItem[] {
  return (JSON.parse(readFileSync(file, 'utf8')) as { items: FollowUpItem[] }).items;
}
