import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { FEEDBACK_VALUES, RUN_OUTCOMES, SESSION_STATUSES } from '../session.types.js';
import { ReferenceDto } from './ingest-session.dto.js';
import { MediaDto } from './media.dto.js';
import type { SelfEvaluation } from '../session.types.js';
import type { SessionCoverageSummary, SessionView } from '../session-view.js';
import type { Serialized } from '@arbiter/common';

export class SelfEvaluationDto implements Serialized<SelfEvaluation> {
  @ApiProperty({ minimum: 0, maximum: 100 }) confidence: number;
  @ApiProperty() reasoning: string;
  @ApiProperty({ enum: ['llm', 'rule'] }) source: 'llm' | 'rule';
  @ApiProperty() evaluatedAt: string;
  @ApiPropertyOptional() model?: string;
}

export class CoverageSummaryDto implements Serialized<SessionCoverageSummary> {
  @ApiProperty({ enum: ['covered', 'uncovered'] }) verdict: Serialized<SessionCoverageSummary>['verdict'];
  @ApiProperty({ example: 'covered_has_references' }) reasonCode: string;
  @ApiProperty({ example: 'v1' }) evaluatorVersion: string;
  @ApiProperty() referenceCount: number;
  @ApiProperty() topScore: number;
}

export class SessionViewDto implements Serialized<SessionView> {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid' }) conversationId: string;
  @ApiProperty() channel: string;
  @ApiProperty() query: string;
  @ApiProperty({ nullable: true, type: String }) answer: string | null;
  @ApiProperty({
    type: String,
    enum: SESSION_STATUSES,
    description: 'Lifecycle and review state: BAD_CASE when the user marked the answer not useful (see `outcome` for how the run ended)',
  })
  status: Serialized<SessionView>['status'];
  @ApiProperty({
    type: String,
    enum: RUN_OUTCOMES,
    nullable: true,
    description:
      'How the agent run ended, unchanged by feedback: a FAILED run marked not useful is status BAD_CASE, outcome FAILED (self-evaluation 0, no coverage decision). Null while unfinished.',
  })
  outcome: Serialized<SessionView>['outcome'];
  @ApiProperty({ nullable: true, type: String }) intent: string | null;
  @ApiProperty() stepCount: number;
  @ApiProperty() toolCallCount: number;
  @ApiProperty({ type: [ReferenceDto] }) references: ReferenceDto[];
  @ApiProperty({ type: [MediaDto] }) media: MediaDto[];
  @ApiProperty() knowledgeSearched: boolean;
  @ApiProperty({ type: SelfEvaluationDto, nullable: true }) selfEvaluation: SelfEvaluationDto | null;
  @ApiProperty({ enum: FEEDBACK_VALUES, nullable: true }) feedback: Serialized<SessionView>['feedback'];
  @ApiProperty({ type: CoverageSummaryDto, nullable: true }) coverage: CoverageSummaryDto | null;
  @ApiProperty({ nullable: true, type: Number }) latencyMs: number | null;
  @ApiProperty() createdAt: string;
  @ApiProperty() updatedAt: string;
}
