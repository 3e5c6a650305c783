import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { StatsBucket } from '../stats-assembler.js';
import type { Agreement, AgreementTable } from '../agreement.js';
import type { Serialized } from '@arbiter/common';

export class ConversationSummaryDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() channel: string;
  @ApiProperty({ nullable: true, type: String }) userRef: string | null;
  @ApiProperty() sessionCount: number;
  @ApiProperty() createdAt: string;
  @ApiProperty() lastActivityAt: string;
  @ApiProperty({ nullable: true, type: String, description: 'Status of the latest session' }) lastStatus: string | null;
  @ApiProperty({ nullable: true, type: Number, description: 'Lowest self-evaluation confidence (0..100) of its sessions' }) lowestConfidence: number | null;
  @ApiProperty({ description: 'Some session is a BAD_CASE' }) anyBadCase: boolean;
}

export class ConversationPageDto {
  @ApiProperty({ type: [ConversationSummaryDto] }) items: ConversationSummaryDto[];
  @ApiProperty({ nullable: true, type: String }) nextCursor: string | null;
}

export class ToolInvocationTraceDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ example: 'knowledge_lookup' }) toolName: string;
  @ApiProperty({ type: Object }) arguments: Record<string, unknown>;
  @ApiProperty({ enum: ['SUCCESS', 'FAILED'] }) status: string;
  @ApiProperty({ nullable: true, type: String }) resultSummary: string | null;
  @ApiProperty({ nullable: true, type: String, example: 'HIGHLY_RELEVANT' }) relevanceLevel: string | null;
  @ApiProperty({ nullable: true, type: String, example: 'doc_retrieved' }) dedupReason: string | null;
  @ApiProperty({ nullable: true, type: Object, description: 'l1TopSimilarity, relevanceLevel, completenessHint, retrievedDomains, dedupReason, …' })
  retrievalDetails: Record<string, unknown> | null;
  @ApiProperty({ nullable: true, type: Number }) durationMs: number | null;
  @ApiProperty({ nullable: true, type: String }) error: string | null;
  @ApiProperty() createdAt: string;
}

export class CoverageTraceDto {
  @ApiProperty({ enum: ['covered', 'uncovered'] }) verdict: string;
  @ApiProperty() reasonCode: string;
  @ApiProperty() evaluatorVersion: string;
  @ApiProperty() referenceCount: number;
  @ApiProperty() topScore: number;
  @ApiProperty() decidedAt: string;
}

export class FeedbackTraceDto {
  @ApiProperty({ enum: ['useful', 'not_useful'] }) value: string;
  @ApiProperty({ nullable: true, type: String }) comment: string | null;
  @ApiProperty({ nullable: true, type: String }) updatedAt: string | null;
}

export class SessionTraceDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() channel: string;
  @ApiProperty({ nullable: true, type: String }) userRef: string | null;
  @ApiProperty() query: string;
  @ApiProperty({ nullable: true, type: String }) answer: string | null;
  @ApiProperty() status: string;
  @ApiProperty({ nullable: true, type: String }) intent: string | null;
  @ApiProperty() stepCount: number;
  @ApiProperty() toolCallCount: number;
  @ApiProperty({ type: [Object] }) references: unknown[];
  @ApiProperty({ type: [Object] }) media: unknown[];
  @ApiProperty() knowledgeSearched: boolean;
  @ApiProperty({ nullable: true, type: Object, description: 'ruleMatch, semanticMatch, llmJudge, fusion' }) routeTrace: Record<string, unknown> | null;
  @ApiProperty({ type: [ToolInvocationTraceDto] }) toolInvocations: ToolInvocationTraceDto[];
  @ApiProperty({ nullable: true, type: Object }) selfEvaluation: Record<string, unknown> | null;
  @ApiProperty({ nullable: true, type: CoverageTraceDto, description: 'Decision of the current evaluator version' }) coverage: CoverageTraceDto | null;
  @ApiProperty({ nullable: true, type: FeedbackTraceDto }) feedback: FeedbackTraceDto | null;
  @ApiProperty({ nullable: true, type: Number }) latencyMs: number | null;
  @ApiProperty({ nullable: true, type: String }) error: string | null;
  @ApiProperty() createdAt: string;
  @ApiProperty() updatedAt: string;
  @ApiProperty({ nullable: true, type: String }) finishedAt: string | null;
}

export class ConversationDetailDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() channel: string;
  @ApiProperty({ nullable: true, type: String }) userRef: string | null;
  @ApiProperty() createdAt: string;
  @ApiProperty() lastActivityAt: string;
  @ApiProperty() sessionCount: number;
  @ApiProperty({ type: [SessionTraceDto], description: 'Every session, oldest first' }) sessions: SessionTraceDto[];
}

class JudgeStatsDto {
  @ApiProperty() calls: number;
  @ApiProperty({ nullable: true, type: Number }) callRate: number | null;
  @ApiProperty() tokens: number;
}
class CoverageStatsDto {
  @ApiProperty() evaluated: number;
  @ApiProperty() covered: number;
  @ApiProperty({ nullable: true, type: Number }) rate: number | null;
}
class FeedbackStatsDto {
  @ApiProperty() useful: number;
  @ApiProperty() notUseful: number;
}
class LatencyStatsDto {
  @ApiProperty() count: number;
  @ApiProperty({ nullable: true, type: Number }) p50: number | null;
  @ApiProperty({ nullable: true, type: Number }) p95: number | null;
}

export class StatsBucketDto implements Serialized<StatsBucket> {
  @ApiProperty() sessions: number;
  @ApiProperty({ type: Object, example: { PENDING: 0, RUNNING: 0, SUCCESS: 12, FAILED: 1, BAD_CASE: 2 } }) byStatus: Serialized<StatsBucket>['byStatus'];
  @ApiProperty({
    type: Object,
    example: { rule_high_confidence: 9, fusion_fallback: 2 },
    description:
      'Count per decision reason of the route traces (docs/spec/intent-routing.md); traces stored before 2026-11-30 may count the retired `semantic_fallback`',
  })
  decisionReasons: Record<string, number>;
  @ApiProperty({ description: 'Sessions with a route trace (denominator of clarifyRate and judge.callRate)' }) routedSessions: number;
  @ApiProperty({ nullable: true, type: Number }) clarifyRate: number | null;
  @ApiProperty({ type: JudgeStatsDto }) judge: JudgeStatsDto;
  @ApiProperty({ type: Object, example: { rule: { count: 10, meanConfidence: 64.5 } } }) selfEvaluation: Record<
    string,
    { count: number; meanConfidence: number | null }
  >;
  @ApiProperty({ type: CoverageStatsDto }) coverage: CoverageStatsDto;
  @ApiProperty({ type: FeedbackStatsDto }) feedback: FeedbackStatsDto;
  @ApiProperty({ type: LatencyStatsDto }) latencyMs: LatencyStatsDto;
}

export class DayStatsDto extends StatsBucketDto {
  @ApiProperty({ example: '2026-03-01' }) date: string;
}

export class AgreementTableDto implements Serialized<AgreementTable> {
  @ApiProperty({ description: 'Predicted good, feedback useful' }) goodUseful: number;
  @ApiProperty({ description: 'Predicted good, feedback not useful' }) goodNotUseful: number;
  @ApiProperty({ description: 'Predicted bad, feedback useful' }) badUseful: number;
  @ApiProperty({ description: 'Predicted bad, feedback not useful' }) badNotUseful: number;
}

export class AgreementDto implements Serialized<Agreement> {
  @ApiProperty({ type: AgreementTableDto }) table: AgreementTableDto;
  @ApiProperty({ description: 'Sessions in the table' }) n: number;
  @ApiProperty({ type: Number, nullable: true, description: '(goodUseful + badNotUseful) / n; null when n = 0' }) observedAgreement: number | null;
  @ApiProperty({ type: Number, nullable: true, description: 'Agreement expected by chance from the margins; null when n = 0' }) expectedAgreement:
    number | null;
  @ApiProperty({
    type: Number,
    nullable: true,
    description: "Cohen's κ = (po − pe) / (1 − pe), 6 decimals; null when n = 0 or pe = 1 (both sides gave every session the same single value)",
  })
  kappa: number | null;
}

export class StatsAgreementDto {
  @ApiProperty({
    enum: ['feedback'],
    description: 'Which timestamp puts a session in the window: the time of its current feedback (session_feedback.updated_at), not its creation',
  })
  period: 'feedback';
  @ApiProperty({ description: 'Self-evaluation confidence / 100 at or above this = "good"' }) selfEvaluationThreshold: number;
  @ApiProperty({
    type: AgreementDto,
    description: 'Self-evaluation (good/bad) vs feedback (useful/not useful); sessions without a self-evaluation are left out',
  })
  selfEvaluation: AgreementDto;
  @ApiProperty({
    type: AgreementDto,
    description: 'Coverage verdict (covered = good) vs feedback; sessions without a decision of the evaluator version are left out',
  })
  coverage: AgreementDto;
}

export class StatsDto {
  @ApiProperty({ description: 'Window start (inclusive), ISO instant' }) from: string;
  @ApiProperty({ description: 'Window end (exclusive), ISO instant' }) to: string;
  @ApiProperty({ example: 'UTC' }) timeZone: string;
  @ApiProperty({ example: 'v1' }) evaluatorVersion: string;
  @ApiProperty({ nullable: true, type: String, enum: ['day'] }) groupBy: 'day' | null;
  @ApiProperty({ type: StatsBucketDto }) totals: StatsBucketDto;
  @ApiPropertyOptional({ type: [DayStatsDto], description: 'With groupBy=day: days (tenant time zone) that have sessions or decisions' }) byDay?: DayStatsDto[];
  @ApiPropertyOptional({
    type: StatsAgreementDto,
    description: 'With agreement=true: Cohen\'s κ of self-evaluation and of coverage against user feedback given in the window (docs/learning.md "Agreement")',
  })
  agreement?: StatsAgreementDto;
}

export class StatsRebuildDto {
  @ApiProperty({ description: '15-minute buckets of session figures rebuilt' }) sessionBuckets: number;
  @ApiProperty({ description: '15-minute buckets of coverage figures rebuilt (per evaluator version)' }) coverageBuckets: number;
  @ApiProperty() durationMs: number;
}
