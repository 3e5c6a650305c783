import type { BadCaseReviewStatus } from './feedback.types.js';

/**
 * Bad-case review (docs/learning.md "Review"), pure: which fields a review request sets, what it names that the
 * tenant does not have, and how the one record per bad case reads as its accept-example label and its review.
 */

/** A partial review: an absent field is left as it is, `null` clears it (status cannot be cleared). */
export interface BadCaseReviewPatch {
  intent?: string | null;
  documentId?: string | null;
  note?: string | null;
  status?: BadCaseReviewStatus;
}

/** The record of a bad case (bad_case_label): accept-example's fields and the review's. */
export interface BadCaseRecord {
  sessionId: string;
  intent: string | null;
  ruleId: string | null;
  example: string | null;
  documentId: string | null;
  note: string | null;
  status: BadCaseReviewStatus;
  resolvedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface DocumentName {
  id: string;
  title: string;
  filePath: string;
}

export interface FieldProblem {
  field: string;
  errors: string[];
}

export interface BadCaseLabelView {
  intent: string;
  ruleId: string | null;
  example: string | null;
  labelledAt: string;
}

export interface BadCaseReviewView {
  status: BadCaseReviewStatus;
  intent: string | null;
  document: DocumentName | null;
  note: string | null;
  resolvedAt: string | null;
  updatedAt: string;
}

/** True when the request sets nothing. */
export function isEmptyReview(patch: BadCaseReviewPatch): boolean {
  return patch.intent === undefined && patch.documentId === undefined && patch.note === undefined && patch.status === undefined;
}

/** The patch as written: the intent trimmed (as accept-example trims it); everything else as given. */
export function normalizeReview(patch: BadCaseReviewPatch): BadCaseReviewPatch {
  const out: BadCaseReviewPatch = {};
  if (patch.intent !== undefined) out.intent = patch.intent === null ? null : patch.intent.trim();
  if (patch.documentId !== undefined) out.documentId = patch.documentId === null ? null : patch.documentId.toLowerCase();
  if (patch.note !== undefined) out.note = patch.note;
  if (patch.status !== undefined) out.status = patch.status;
  return out;
}

/**
 * The fields of a (normalized) patch that name what the tenant does not have: an intent no rule of the tenant
 * names, a document id that is not one of the tenant's knowledge documents. Clearing (null) is always allowed.
 */
export function reviewProblems(patch: BadCaseReviewPatch, knownIntents: ReadonlySet<string>, foundDocumentIds: ReadonlySet<string>): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (typeof patch.intent === 'string' && !knownIntents.has(patch.intent)) {
    problems.push({ field: 'intent', errors: [`intent "${patch.intent}" is not the intent of any rule of this tenant`] });
  }
  if (typeof patch.documentId === 'string' && !foundDocumentIds.has(patch.documentId)) {
    problems.push({ field: 'documentId', errors: [`documentId ${patch.documentId} is not a knowledge document of this tenant`] });
  }
  return problems;
}

/** The accept-example label of a record: present while it carries an intent (ruleId/example: the last accept-example). */
export function labelOf(record: BadCaseRecord | undefined): BadCaseLabelView | null {
  if (record === undefined || record.intent === null) return null;
  return { intent: record.intent, ruleId: record.ruleId, example: record.example, labelledAt: record.updatedAt.toISOString() };
}

/**
 * The review of a record: null when the bad case has none; its document resolved from `documents` (the tenant's
 * documents by id) — a document deleted since reads as null (no foreign key, migration 0170).
 */
export function reviewOf(record: BadCaseRecord | undefined, documents: ReadonlyMap<string, DocumentName>): BadCaseReviewView | null {
  if (record === undefined) return null;
  const doc = record.documentId === null ? undefined : documents.get(record.documentId);
  return {
    status: record.status,
    intent: record.intent,
    document: doc === undefined ? null : { id: doc.id, title: doc.title, filePath: doc.filePath },
    note: record.note,
    resolvedAt: record.resolvedAt === null ? null : record.resolvedAt.toISOString(),
    updatedAt: record.updatedAt.toISOString(),
  };
}
