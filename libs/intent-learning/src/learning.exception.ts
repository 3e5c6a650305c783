import { DomainException, type DomainErrorSpec } from '@arbiter/common';

export enum LearningErrorCode {
  DECISION_NOT_FOUND = 'DECISION_NOT_FOUND',
  LABELLED_SET_NOT_FOUND = 'LABELLED_SET_NOT_FOUND',
  UNKNOWN_INTENTS = 'UNKNOWN_INTENTS',
  FIT_NOT_FOUND = 'INTENT_FIT_NOT_FOUND',
  FIT_DATA_INSUFFICIENT = 'FIT_DATA_INSUFFICIENT',
  REPLAY_NOT_FOUND = 'INTENT_REPLAY_NOT_FOUND',
}

export const LEARNING_ERRORS: Record<LearningErrorCode, DomainErrorSpec> = {
  [LearningErrorCode.DECISION_NOT_FOUND]: { status: 404, message: 'Decision not found' },
  [LearningErrorCode.LABELLED_SET_NOT_FOUND]: { status: 404, message: 'Labelled set not found' },
  [LearningErrorCode.UNKNOWN_INTENTS]: { status: 400, message: 'Labels name intents no rule of the tenant has' },
  [LearningErrorCode.FIT_NOT_FOUND]: { status: 404, message: 'Fit not found' },
  [LearningErrorCode.FIT_DATA_INSUFFICIENT]: { status: 400, message: 'The labelled set is too small to fit on' },
  [LearningErrorCode.REPLAY_NOT_FOUND]: { status: 404, message: 'Replay not found' },
};

export class LearningException extends DomainException<LearningErrorCode> {
  constructor(code: LearningErrorCode, detail?: string, details?: unknown) {
    super(code, LEARNING_ERRORS[code], detail, details);
  }
}

/** The 400 of labels naming intents the tenant has no rule for: lists them (the first 100) and the field. */
export function unknownIntentsError(unknown: readonly string[], field: string): LearningException {
  const shown = unknown.slice(0, 100);
  const more = unknown.length - shown.length;
  return new LearningException(LearningErrorCode.UNKNOWN_INTENTS, `${shown.join(', ')}${more > 0 ? ` (and ${more} more)` : ''}`, {
    fields: [field],
    unknownIntents: shown,
  });
}
