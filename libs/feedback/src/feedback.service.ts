import { Injectable } from '@nestjs/common';
import { MetricsService, type TenantId } from '@arbiter/common';
import { CaseLibraryService } from '@arbiter/case-library';
import type { FeedbackValue } from '@arbiter/sessions';
import type { FeedbackResultDto } from './dto/feedback.dto.js';
import { FeedbackErrorCode, FeedbackException } from './feedback.exception.js';
import { FeedbackRepository } from './feedback.repository.js';

@Injectable()
export class FeedbackService {
  private readonly feedbackTotal;

  constructor(
    private readonly repository: FeedbackRepository,
    private readonly cases: CaseLibraryService,
    metrics: MetricsService,
  ) {
    this.feedbackTotal = metrics.counter('arbiter_feedback_total', 'Feedback posts by value and result (applied|unchanged|rejected|not_found)', [
      'feedback',
      'result',
    ]);
  }

  /** POST /api/feedback: one transaction; repeats are idempotent; rejected posts write nothing. */
  async submit(tenantId: TenantId, input: { sessionId: string; feedback: FeedbackValue; comment?: string }): Promise<FeedbackResultDto> {
    const outcome = await this.repository.applyFeedback(tenantId, input.sessionId, input.feedback, input.comment);
    switch (outcome.kind) {
      case 'not_found':
        this.feedbackTotal.inc({ feedback: input.feedback, result: 'not_found' });
        throw new FeedbackException(FeedbackErrorCode.SessionNotFound, input.sessionId);
      case 'rejected':
        this.feedbackTotal.inc({ feedback: input.feedback, result: 'rejected' });
        throw new FeedbackException(outcome.reason === 'SESSION_NOT_FINISHED' ? FeedbackErrorCode.SessionNotFinished : FeedbackErrorCode.NoAnswerToKeep);
      case 'ok':
        this.feedbackTotal.inc({ feedback: input.feedback, result: outcome.changed ? 'applied' : 'unchanged' });
        if (outcome.caseEvent) this.cases.sessionCaseChanged(tenantId, outcome.caseEvent);
        return { sessionId: input.sessionId, feedback: outcome.feedback, status: outcome.status, caseId: outcome.caseId };
    }
  }
}
