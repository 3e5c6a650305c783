import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsISO8601, IsIn, IsOptional, IsString, IsUUID, Matches, MaxLength, ValidateIf } from 'class-validator';
import { NotBlank, PageQueryDto } from '@arbiter/common';
import { FAILURE_LAYERS, FAILURE_REASONS, SelfEvaluationDto } from '@arbiter/sessions';
import { BAD_CASE_REVIEW_STATUSES, MAX_REVIEW_NOTE_LENGTH, type BadCaseReviewStatus } from '../feedback.types.js';
import type { BadCaseLabelView, BadCaseReviewView } from '../bad-case-review.js';
import type { Serialized } from '@arbiter/common';

export class ListBadCasesQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: BAD_CASE_REVIEW_STATUSES, description: 'Only bad cases whose review has this status (a case never reviewed is OPEN)' })
  @IsOptional()
  @IsIn(BAD_CASE_REVIEW_STATUSES)
  status?: BadCaseReviewStatus;
}

const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:\d{2})$/;

export class BadCaseReportQueryDto {
  @ApiPropertyOptional({
    description: 'Bad cases marked (feedback time) at or after this ISO-8601 instant with a zone; default: no lower bound',
    example: '2026-03-01T00:00:00Z',
  })
  @IsOptional()
  @IsISO8601({ strict: true })
  @Matches(INSTANT, { message: 'from must be an ISO-8601 instant with a zone (2026-03-01T00:00:00Z)' })
  from?: string;

  @ApiPropertyOptional({
    description: 'Bad cases marked before this ISO-8601 instant with a zone (excluded); default: no upper bound',
    example: '2026-04-01T00:00:00Z',
  })
  @IsOptional()
  @IsISO8601({ strict: true })
  @Matches(INSTANT, { message: 'to must be an ISO-8601 instant with a zone (2026-04-01T00:00:00Z)' })
  to?: string;
}

export class FailureAttributionDto {
  @ApiProperty({ enum: FAILURE_LAYERS, description: 'The layer the failure is attributed to (docs/learning.md "Failure attribution")' }) layer: string;
  @ApiProperty({ enum: FAILURE_REASONS, description: 'The attribution rule that decided' }) reason: string;
}

export class BadCaseReportDto {
  @ApiProperty({ nullable: true, type: String }) from: string | null;
  @ApiProperty({ nullable: true, type: String }) to: string | null;
  @ApiProperty({ description: 'Bad cases marked in the window' }) total: number;
  @ApiProperty({
    description: `Bad cases per failure layer (${FAILURE_LAYERS.join(', ')}), zeros included`,
    type: 'object',
    additionalProperties: { type: 'integer' },
  })
  byLayer: Record<string, number>;
  @ApiProperty({
    description: `Bad cases per attribution rule (${FAILURE_REASONS.join(', ')}), zeros included`,
    type: 'object',
    additionalProperties: { type: 'integer' },
  })
  byReason: Record<string, number>;
}

export class RouteSummaryDto {
  @ApiProperty({ nullable: true, type: String }) finalIntent: string | null;
  @ApiProperty({ nullable: true, type: String }) decisionReason: string | null;
  @ApiProperty({ nullable: true, type: Number }) finalConfidence: number | null;
  @ApiProperty({ description: 'Whether the LLM judge ran' }) llmJudgeTriggered: boolean;
}

export class BadCaseDto {
  @ApiProperty({ format: 'uuid' }) sessionId: string;
  @ApiProperty({ format: 'uuid' }) conversationId: string;
  @ApiProperty() channel: string;
  @ApiProperty() query: string;
  @ApiProperty({ nullable: true, type: String }) answer: string | null;
  @ApiProperty({ nullable: true, type: String, description: "The user's comment" }) comment: string | null;
  @ApiProperty({ nullable: true, type: String }) intent: string | null;
  @ApiProperty({ type: SelfEvaluationDto, nullable: true }) selfEvaluation: SelfEvaluationDto | null;
  @ApiProperty({ type: RouteSummaryDto, nullable: true }) routeSummary: RouteSummaryDto | null;
  @ApiProperty() sessionCreatedAt: string;
  @ApiProperty({ description: 'When the user marked it not useful' }) markedAt: string;
  @ApiProperty({
    type: () => BadCaseLabelDto,
    nullable: true,
    description: 'The correct intent an operator put on it (accept-example, or the review), else null; ruleId/example: the last accept-example',
  })
  label: BadCaseLabelDto | null;
  @ApiProperty({
    type: () => BadCaseReviewDto,
    nullable: true,
    description: 'Its review (correct intent and document, note, OPEN/RESOLVED); null when no operator has labelled or reviewed it',
  })
  review: BadCaseReviewDto | null;
  @ApiProperty({ type: () => FailureAttributionDto, description: 'Failure layer and the rule that decided it, from the stored trace' })
  attribution: FailureAttributionDto;
}

export class BadCaseLabelDto implements Serialized<BadCaseLabelView> {
  @ApiProperty({ example: 'fault_diagnosis', description: 'The correct intent' }) intent: string;
  @ApiProperty({ format: 'uuid', nullable: true, type: String, description: 'The rule whose semantic examples received the question' }) ruleId: string | null;
  @ApiProperty({ nullable: true, type: String, description: 'The question as appended to the semantic examples' }) example: string | null;
  @ApiProperty() labelledAt: string;
}

export class BadCaseReviewDocumentDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ description: "The knowledge document's title" }) title: string;
  @ApiProperty({ description: "The knowledge document's file path (unique in the tenant)" }) filePath: string;
}

export class BadCaseReviewDto implements Serialized<BadCaseReviewView> {
  @ApiProperty({ enum: BAD_CASE_REVIEW_STATUSES }) status: BadCaseReviewStatus;
  @ApiProperty({ nullable: true, type: String, example: 'fault_diagnosis', description: 'The correct intent' }) intent: string | null;
  @ApiProperty({
    type: () => BadCaseReviewDocumentDto,
    nullable: true,
    description: 'The correct knowledge document; null when none was set or the document has been deleted since',
  })
  document: BadCaseReviewDocumentDto | null;
  @ApiProperty({ nullable: true, type: String, maxLength: MAX_REVIEW_NOTE_LENGTH }) note: string | null;
  @ApiProperty({ nullable: true, type: String, description: 'When it was resolved (null while OPEN)' }) resolvedAt: string | null;
  @ApiProperty({ description: 'Last change of the review or label' }) updatedAt: string;
}

/** PUT /admin/bad-cases/:sessionId/review: a partial update; an absent field is kept, null clears it. */
export class PutBadCaseReviewDto {
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    maxLength: 100,
    example: 'fault_diagnosis',
    description: 'The correct intent: an intent of a rule of the tenant; null clears it',
  })
  @IsOptional()
  @IsString()
  @NotBlank()
  @MaxLength(100)
  intent?: string | null;

  @ApiPropertyOptional({ type: String, format: 'uuid', nullable: true, description: 'The correct knowledge document of the tenant; null clears it' })
  @IsOptional()
  @IsUUID()
  documentId?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: MAX_REVIEW_NOTE_LENGTH, description: "The operator's note; null clears it" })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_REVIEW_NOTE_LENGTH)
  note?: string | null;

  @ApiPropertyOptional({ enum: BAD_CASE_REVIEW_STATUSES, description: 'RESOLVED resolves the case (resolvedAt set once), OPEN reopens it' })
  @ValidateIf((_o, v) => v !== undefined)
  @IsIn(BAD_CASE_REVIEW_STATUSES)
  status?: BadCaseReviewStatus;
}

export class AcceptExampleDto {
  @ApiProperty({
    example: 'fault_diagnosis',
    maxLength: 100,
    description: "The bad case's correct intent; its enabled rule (highest priority) takes the question",
  })
  @IsString()
  @NotBlank()
  @MaxLength(100)
  intent: string;
}

export class AcceptExampleResultDto {
  @ApiProperty({ format: 'uuid' }) sessionId: string;
  @ApiProperty() intent: string;
  @ApiProperty({ format: 'uuid' }) ruleId: string;
  @ApiProperty({ description: 'The question appended to the rule' }) example: string;
  @ApiProperty({ description: "The rule's semantic examples after the append" }) semanticExampleCount: number;
  @ApiProperty({ type: BadCaseLabelDto }) label: BadCaseLabelDto;
}

export class BadCasePageDto {
  @ApiProperty({ type: [BadCaseDto] }) items: BadCaseDto[];
  @ApiProperty({ nullable: true, type: String }) nextCursor: string | null;
}
