import { ApiProperty } from '@nestjs/swagger';
import { DECISION_REASONS, type DecisionReason } from '../routing/index.js';
import { INTENT_TRAINING_STATES, type IntentTrainingState } from '../intent-status.js';
import type { IntentStatus } from '../intent-status.js';
import type { IntentRuleView } from '../intent.types.js';
import type { FusionWeights, RouteResult } from '../routing/types.js';
import type { IntentConfig } from '../routing/config.js';
import type { ReliabilityBin, ReliabilityReport } from '../routing/calibration.js';
import type { ConfusionPair, EvaluationReport, IntentMetrics } from '../routing/evaluation.js';
import type { Page, Serialized } from '@arbiter/common';

export class ExampleEmbeddingsDto {
  @ApiProperty({ example: 'local:hash-v2:384' }) model: string;
  @ApiProperty() dimension: number;
  @ApiProperty() count: number;
}

export class IntentTrainingDto {
  @ApiProperty({ enum: INTENT_TRAINING_STATES, description: 'idle | queued (waiting for a thread, or newer rules not compiled here yet) | training | failed' })
  state: IntentTrainingState;
  @ApiProperty({ type: Number, nullable: true, description: 'Share of the training done (0..1) while `training`; null otherwise' })
  progress: number | null;
}

export class IntentStatusDto implements Serialized<IntentStatus> {
  @ApiProperty({ example: '42', description: "The tenant's stored rules version (shared by every API process)" })
  rulesVersion: string;
  @ApiProperty({
    type: String,
    nullable: true,
    example: '41',
    description: 'Rules version the classifier serving on this API process was trained on; null: none yet (the interim matcher serves)',
  })
  classifierVersion: string | null;
  @ApiProperty({ type: IntentTrainingDto }) training: IntentTrainingDto;
  @ApiProperty({ type: Number, nullable: true, description: 'Duration of the last completed training on this API process (ms, submission to serving)' })
  lastTrainingMs: number | null;
  @ApiProperty({ description: 'Intents routed by their examples (the interim matcher) until the retrained classifier serves' })
  interimIntents: number;
}

export class IntentRuleViewDto implements Serialized<IntentRuleView> {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ example: '故障诊断' }) intent: string;
  @ApiProperty({ nullable: true, type: String }) description: string | null;
  @ApiProperty({ type: [String] }) keywords: string[];
  @ApiProperty({ type: [String], description: 'RE2 regular expressions (linear time)' }) patterns: string[];
  @ApiProperty({ type: [String] }) semanticExamples: string[];
  @ApiProperty({ type: [Number], nullable: true }) intentVector: number[] | null;
  @ApiProperty() priority: number;
  @ApiProperty() enabled: boolean;
  @ApiProperty({ nullable: true, type: String }) reply: string | null;
  @ApiProperty({ enum: ['knowledge', 'answer', 'transfer'] }) action: Serialized<IntentRuleView>['action'];
  @ApiProperty({ example: 'search' }) confidenceProfile: string;
  @ApiProperty({ type: ExampleEmbeddingsDto, nullable: true }) exampleEmbeddings: ExampleEmbeddingsDto | null;
  @ApiProperty() createdAt: string;
  @ApiProperty() updatedAt: string;
}

export class IntentRulePageDto implements Serialized<Page<IntentRuleView>> {
  @ApiProperty({ type: [IntentRuleViewDto] }) items: IntentRuleViewDto[];
  @ApiProperty({ nullable: true, type: String }) nextCursor: string | null;
}

export class FusionWeightsDto implements Serialized<FusionWeights> {
  @ApiProperty({ example: 0.5 }) rule: number;
  @ApiProperty({ example: 0.3 }) semantic: number;
  @ApiProperty({ example: 0.2 }) llm: number;
}

export class CalibrationDto {
  @ApiProperty({ enum: ['isotonic'] }) method: 'isotonic';
  @ApiProperty({ type: [Number], description: 'Knots of the fused confidence, ascending, within [0, 1]' }) x: number[];
  @ApiProperty({ type: [Number], description: 'Probability at each knot, non-decreasing, within [0, 1]' }) y: number[];
  @ApiProperty({ description: 'Labelled decisions it was fitted on' }) samples: number;
}

/** The effective routing config; PUT accepts any subset of these keys (weights may be partial). */
export class IntentConfigDto implements Serialized<IntentConfig> {
  @ApiProperty({ type: FusionWeightsDto }) weights: FusionWeightsDto;
  @ApiProperty({ example: 0.7 }) semanticThreshold: number;
  @ApiProperty({ example: 0.2 }) conflictThreshold: number;
  @ApiProperty({ example: 0.6 }) grayZoneThreshold: number;
  @ApiProperty({ example: 0.3 }) minTriggerThreshold: number;
  @ApiProperty({ example: 0.4 }) clarifyThreshold: number;
  @ApiProperty({ example: 0.15 }) multiIntentThreshold: number;
  @ApiProperty() llmJudgeEnabled: boolean;
  @ApiProperty() semanticMatcherEnabled: boolean;
  @ApiProperty({ example: 100 }) semanticMatcherTimeoutMs: number;
  @ApiProperty({ example: 2000 }) llmJudgeTimeoutMs: number;
  @ApiProperty({ example: 3 }) semanticTopK: number;
  @ApiProperty({ type: String, example: 'mean', description: 'mean | max | topk_mean | centroid_knn | classifier' })
  semanticAggregation: Serialized<IntentConfig>['semanticAggregation'];
  @ApiProperty({ example: 3 }) semanticExampleK: number;
  @ApiProperty({
    type: CalibrationDto,
    nullable: true,
    description: 'Isotonic map of the fused confidence onto P(named intent is right), proposed by a fit (docs/learning.md); null = uncalibrated',
  })
  calibration: CalibrationDto | null;
}

export class IntentCandidateDto {
  @ApiProperty() intent: string;
  @ApiProperty({ minimum: 0, maximum: 1 }) confidence: number;
}

export class RouteResultDto implements Serialized<RouteResult> {
  @ApiProperty({ nullable: true, type: String }) finalIntent: string | null;
  @ApiProperty({ nullable: true, type: String }) ruleId: string | null;
  @ApiProperty({
    minimum: 0,
    maximum: 1,
    description:
      'Fused confidence; with a calibration and a named intent, the calibrated probability of being right (routeTrace.fusion.rawConfidence keeps the fused one)',
  })
  finalConfidence: number;
  @ApiProperty({
    enum: DECISION_REASONS,
    description:
      "docs/spec/intent-routing.md decision order. `fusion_fallback`: step 4 without a judge answer (no trigger, judge disabled, failed or timed out) takes the top candidate of the rule + semantic fusion. Route traces stored before 2026-11-30 may carry the retired `semantic_fallback` (the semantic top). `clarify_resolved` is the chat's only (a session's route trace, the stream's `route` event): the user picked one of the intents a clarifying question offered (docs/chat-clients.md \"Clarification\"); this endpoint never answers it.",
  })
  decisionReason: DecisionReason;
  @ApiProperty() needClarify: boolean;
  @ApiProperty({ type: [IntentCandidateDto] }) candidates: IntentCandidateDto[];
  @ApiProperty({ type: Object, description: '{ruleMatch, semanticMatch, llmJudge, fusion} — see docs/spec/intent-routing.md' })
  routeTrace: Serialized<RouteResult>['routeTrace'];
}

export class ReliabilityBinDto implements Serialized<ReliabilityBin> {
  @ApiProperty() from: number;
  @ApiProperty() to: number;
  @ApiProperty() count: number;
  @ApiProperty({ nullable: true, type: Number }) meanConfidence: number | null;
  @ApiProperty({ nullable: true, type: Number, description: 'Share of right decisions in the bin' }) accuracy: number | null;
}

export class ReliabilityReportDto implements Serialized<ReliabilityReport> {
  @ApiProperty({ description: 'Expected calibration error (10 equal-width bins)' }) ece: number;
  @ApiProperty({ type: [ReliabilityBinDto] }) bins: ReliabilityBinDto[];
  @ApiProperty() samples: number;
}

export class IntentMetricsDto implements Serialized<IntentMetrics> {
  @ApiProperty() intent: string;
  @ApiProperty() precision: number;
  @ApiProperty() recall: number;
  @ApiProperty() f1: number;
  @ApiProperty({ description: 'Labelled examples of the intent' }) support: number;
}

export class ConfusionPairDto implements Serialized<ConfusionPair> {
  @ApiProperty({ type: String, nullable: true, description: 'Labelled intent; null = out of scope' }) expected: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'Routed intent; null = no intent' }) predicted: string | null;
  @ApiProperty() count: number;
}

export class IntentEvaluationReportDto implements Serialized<EvaluationReport & { config: IntentConfig }> {
  @ApiProperty() total: number;
  @ApiProperty() inScopeTotal: number;
  @ApiProperty() outOfScopeTotal: number;
  @ApiProperty({ description: 'Share of all examples routed to their label (null label ↔ no intent)' }) accuracy: number;
  @ApiProperty({ nullable: true, type: Number }) inScopeAccuracy: number | null;
  @ApiProperty({ nullable: true, type: Number, description: 'Share of out-of-scope examples routed to no intent' }) outOfScopeRecall: number | null;
  @ApiProperty() macroF1: number;
  @ApiProperty({ type: [IntentMetricsDto], description: 'Per intent: precision, recall, F1, support' }) perIntent: IntentMetricsDto[];
  @ApiProperty({ type: [ConfusionPairDto], description: 'Most frequent (expected → predicted) confusion pairs' }) confusions: ConfusionPairDto[];
  @ApiProperty() clarifyRate: number;
  @ApiProperty() judgeCallRate: number;
  @ApiProperty({ type: Object, description: 'Count per decisionReason' }) decisionReasons: Serialized<EvaluationReport>['decisionReasons'];
  @ApiProperty({ type: ReliabilityReportDto, description: 'Calibration of finalConfidence over decisions that named an intent' })
  reliability: ReliabilityReportDto;
  @ApiProperty({ type: IntentConfigDto, description: 'The config the examples were routed with' }) config: IntentConfigDto;
}
