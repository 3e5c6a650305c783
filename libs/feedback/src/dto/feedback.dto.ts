import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsISO8601, IsIn, IsNumber, IsOptional, IsString, IsUUID, Matches, MaxLength, ValidateIf } from 'class-validator';
import { NotBlank, PageQueryDto } from '@arbiter/common';
import { FAILURE_LAYERS, FAILURE_REASONS, FEEDBACK_VALUES, SESSION_STATUSES, SelfEvaluationDto, type FeedbackValue } from '@arbiter/sessions';
import {
  BAD_CASE_REVIEW_STATUSES,
  CASE_SOURCE_TYPES,
  FAULT_CATEGORIES,
  MAX_COMMENT_LENGTH,
  MAX_REVIEW_NOTE_LENGTH,
  type BadCaseReviewStatus,
  type CaseSourceType,
  type FaultCategory,
} from '../feedback.types.js';

const MAX_TEXT_LENGTH = 20_000;

export class SubmitFeedbackDto {
  @ApiProperty({ format: 'uuid' })
  @IsUUID()
  sessionId: string;

  @ApiProperty({ enum: FEEDBACK_VALUES })
  @IsIn(FEEDBACK_VALUES)
  feedback: FeedbackValue;

  @ApiPropertyOptional({ maxLength: MAX_COMMENT_LENGTH, description: 'Why (shown in the bad-case review queue)' })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_COMMENT_LENGTH)
  comment?: string;
}

export class FeedbackResultDto {
  @ApiProperty({ format: 'uuid' }) sessionId: string;
  @ApiProperty({ enum: FEEDBACK_VALUES }) feedback: string;
  @ApiProperty({ enum: SESSION_STATUSES, description: 'The session status after the feedback (BAD_CASE for not_useful)' }) status: string;
  @ApiProperty({ format: 'uuid', nullable: true, type: String, description: "The session's active case-library entry (useful), else null" }) caseId:
    string | null;
}

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

export class ListCasesQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: FAULT_CATEGORIES })
  @IsOptional()
  @IsIn(FAULT_CATEGORIES)
  faultCategory?: FaultCategory;

  @ApiPropertyOptional({ enum: CASE_SOURCE_TYPES })
  @IsOptional()
  @IsIn(CASE_SOURCE_TYPES)
  sourceType?: CaseSourceType;
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

export class BadCaseLabelDto {
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

export class BadCaseReviewDto {
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

export class CaseLibrarySettingsDto {
  @ApiProperty({
    minimum: 0,
    exclusiveMinimum: true,
    maximum: 1,
    example: 0.85,
    description:
      'A verified case answers a chat message when their similarity (character n-gram TF-IDF cosine) is at least this; in (0, 1] (1 = the same question up to case, width, spacing and punctuation)',
  })
  threshold: number;
  @ApiProperty({ description: 'True when the tenant has not set one (the built-in default applies)' }) isDefault: boolean;
  @ApiProperty({ description: "Version of the tenant's answerable cases and settings (moves on every change that can change an answer)" }) version: string;
}

export class PutCaseLibrarySettingsDto {
  @ApiProperty({
    type: Number,
    nullable: true,
    minimum: 0,
    exclusiveMinimum: true,
    maximum: 1,
    example: 0.9,
    description: 'In (0, 1]; null = back to the default',
  })
  @ValidateIf((_o, v) => v !== null)
  @IsNumber({ allowNaN: false, allowInfinity: false })
  threshold: number | null;
}

export class BadCasePageDto {
  @ApiProperty({ type: [BadCaseDto] }) items: BadCaseDto[];
  @ApiProperty({ nullable: true, type: String }) nextCursor: string | null;
}

export class CaseDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid', nullable: true, type: String }) sessionId: string | null;
  @ApiProperty() query: string;
  @ApiProperty() answer: string;
  @ApiProperty({ enum: FAULT_CATEGORIES }) faultCategory: string;
  @ApiProperty({ nullable: true, type: String }) errorCode: string | null;
  @ApiProperty({ enum: CASE_SOURCE_TYPES }) sourceType: string;
  @ApiProperty() createdAt: string;
  @ApiProperty() updatedAt: string;
}

export class CasePageDto {
  @ApiProperty({ type: [CaseDto] }) items: CaseDto[];
  @ApiProperty({ nullable: true, type: String }) nextCursor: string | null;
}

const ERROR_CODE = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$/;
const ERROR_CODE_MESSAGE = 'errorCode must be 1-64 letters, digits, "_", ".", ":" or "-" (e.g. E102)';

export class CreateCaseDto {
  @ApiProperty({ maxLength: MAX_TEXT_LENGTH })
  @IsString()
  @NotBlank()
  @MaxLength(MAX_TEXT_LENGTH)
  query: string;

  @ApiProperty({ maxLength: MAX_TEXT_LENGTH })
  @IsString()
  @NotBlank()
  @MaxLength(MAX_TEXT_LENGTH)
  answer: string;

  @ApiPropertyOptional({ enum: FAULT_CATEGORIES, default: 'GENERAL' })
  @IsOptional()
  @IsIn(FAULT_CATEGORIES)
  faultCategory?: FaultCategory;

  @ApiPropertyOptional({ example: 'E102', nullable: true, type: String })
  @IsOptional()
  @IsString()
  @Matches(ERROR_CODE, { message: ERROR_CODE_MESSAGE })
  errorCode?: string | null;
}

export class UpdateCaseDto {
  @ApiPropertyOptional({ maxLength: MAX_TEXT_LENGTH, description: 'The question (what chat messages are matched against)' })
  @IsOptional()
  @IsString()
  @NotBlank()
  @MaxLength(MAX_TEXT_LENGTH)
  query?: string;

  @ApiPropertyOptional({ maxLength: MAX_TEXT_LENGTH, description: 'The answer the chat gives when the case matches' })
  @IsOptional()
  @IsString()
  @NotBlank()
  @MaxLength(MAX_TEXT_LENGTH)
  answer?: string;

  @ApiPropertyOptional({ enum: FAULT_CATEGORIES })
  @IsOptional()
  @IsIn(FAULT_CATEGORIES)
  faultCategory?: FaultCategory;

  @ApiPropertyOptional({ example: 'E102', nullable: true, type: String, description: 'null clears it' })
  @IsOptional()
  @IsString()
  @Matches(ERROR_CODE, { message: ERROR_CODE_MESSAGE })
  errorCode?: string | null;
}
