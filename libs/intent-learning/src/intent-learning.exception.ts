import { DomainException, type DomainErrorSpec } from '@arbiter/common';

export enum IntentLearningErrorCode {
  DECISION_NOT_FOUND = 'DECISION_NOT_FOUND',
  LABELLED_SET_NOT_FOUND = 'LABELLED_SET_NOT_FOUND',
  UNKNOWN_INTENTS = 'UNKNOWN_INTENTS',
  FIT_NOT_FOUND = 'INTENT_FIT_NOT_FOUND',
  FIT_DATA_INSUFFICIENT = 'FIT_DATA_INSUFFICIENT',
  REPLAY_NOT_FOUND = 'INTENT_REPLAY_NOT_FOUND',
}

export const INTENT_LEARNING_ERRORS: Record<IntentLearningErrorCode, DomainErrorSpec> = {
  [IntentLearningErrorCode.DECISION_NOT_FOUND]: { status: 404, message: 'Decision not found' },
  [IntentLearningErrorCode.LABELLED_SET_NOT_FOUND]: { status: 404, message: 'Labelled set not found' },
  [IntentLearningErrorCode.UNKNOWN_INTENTS]: { status: 400, message: 'Labels name intents no rule of the tenant has' },
  [IntentLearningErrorCode.FIT_NOT_FOUND]: { status: 404, message: 'Fit not found' },
  [IntentLearningErrorCode.FIT_DATA_INSUFFICIENT]: { status: 400, message: 'The labelled set is too small to fit on' },
  [IntentLearningErrorCode.REPLAY_NOT_FOUND]: { status: 404, message: 'Replay not found' },
};

export class IntentLearningException extends DomainException<IntentLearningErrorCode> {
  constructor(code: IntentLearningErrorCode, detail?: string, details?: unknown) {
    super(code, INTENT_LEARNING_ERRORS[code], detail, details);
  }
}

/** The 400 of labels naming intents the tenant has no rule for: lists them (the first 100) and the field. */
export function unknownIntentsError(unknown: readonly string[], field: string): IntentLearningException {
  const shown = unknown.slice(0, 100);
  const more = unknown.length - shown.length;
  return new IntentLearningException(IntentLearningErrorCode.UNKNOWN_INTENTS, `${shown.join(', ')}${more > 0 ? ` (and ${more} more)` : ''}`, {
    fields: [field],
    unknownIntents: shown,
  });
}
