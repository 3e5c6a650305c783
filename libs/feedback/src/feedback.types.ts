export const MAX_COMMENT_LENGTH = 1000;

/** A bad case's review status (bad_case_label.status, migration 0170): OPEN until an operator resolves it. */
export const BAD_CASE_REVIEW_STATUSES = ['OPEN', 'RESOLVED'] as const;
export type BadCaseReviewStatus = (typeof BAD_CASE_REVIEW_STATUSES)[number];

/** At most this many characters in a review note (chk_bad_case_label_note_length). */
export const MAX_REVIEW_NOTE_LENGTH = 1000;
