import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min, ValidateBy, type ValidationOptions } from 'class-validator';
import { PageQueryDto, unsafeStringProblem } from '@arbiter/common';
import { STORED_DECISION_REASONS } from '@arbiter/intent';
import { LABELLED_LIMITS } from '../labelled-data.js';
import type { StoredDecision } from '../decision-log.repository.js';
import type { Page, Serialized } from '@arbiter/common';

const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/** An ISO-8601 instant with its zone (`2026-11-30T08:00:00Z`, `…+08:00`). */
export function parseInstant(value: unknown): Date | null {
  if (typeof value !== 'string' || !INSTANT.test(value)) return null;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? null : new Date(ms);
}

function IsInstant(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isInstant',
      validator: {
        validate: (v) => parseInstant(v) !== null,
        defaultMessage: () => '$property must be an ISO-8601 instant with a zone (2026-11-30T08:00:00Z)',
      },
    },
    options,
  );
}

/** A label: an intent name, or null for out of scope; required. */
function IsIntentLabel(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isIntentLabel',
      validator: {
        validate: (v) => v === null || (typeof v === 'string' && /\S/.test(v) && v.length <= LABELLED_LIMITS.intentLength && unsafeStringProblem(v) === null),
        defaultMessage: () => `$property must be an intent name (1-${LABELLED_LIMITS.intentLength} characters, not blank) or null for out of scope`,
      },
    },
    options,
  );
}

export const DECISION_SOURCES = ['route', 'chat'] as const;

export class ListDecisionsQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ description: 'Decisions at or after this instant (ISO-8601 with zone)', example: '2026-11-30T00:00:00Z' })
  @IsOptional()
  @IsInstant()
  from?: string;

  @ApiPropertyOptional({ description: 'Decisions at or before this instant (ISO-8601 with zone; included)', example: '2026-11-30T23:59:59Z' })
  @IsOptional()
  @IsInstant()
  to?: string;

  @ApiPropertyOptional({ description: 'Only decisions routed to this intent', maxLength: LABELLED_LIMITS.intentLength })
  @IsOptional()
  @IsString()
  @MaxLength(LABELLED_LIMITS.intentLength)
  intent?: string;

  @ApiPropertyOptional({ enum: STORED_DECISION_REASONS, description: 'Only decisions with this decision reason' })
  @IsOptional()
  @IsIn(STORED_DECISION_REASONS)
  reason?: (typeof STORED_DECISION_REASONS)[number];

  @ApiPropertyOptional({ enum: ['true', 'false'], description: 'Only decisions that asked (true) or did not ask (false) a clarifying question' })
  @IsOptional()
  @IsIn(['true', 'false'])
  needClarify?: 'true' | 'false';

  @ApiPropertyOptional({ enum: DECISION_SOURCES, description: 'Only decisions of `POST /ai/intent/route` (route) or of chat turns (chat)' })
  @IsOptional()
  @IsIn(DECISION_SOURCES)
  source?: (typeof DECISION_SOURCES)[number];
}

export class LabelDecisionDto {
  @ApiProperty({ nullable: true, type: String, example: 'reset_arm', description: 'The correct intent (a rule of the tenant names it), or null: out of scope' })
  @IsIntentLabel()
  intent: string | null;
}

export class DecisionLogSettingsDto implements Serialized<{ retentionDays: number }> {
  @ApiProperty({
    minimum: 1,
    maximum: 3650,
    example: 30,
    description: 'Days a decision is kept; older ones are deleted by the daily `learning.decision-log-cleanup` job',
  })
  @IsInt()
  @Min(1)
  @Max(3650)
  retentionDays: number;
}

export class DecisionCandidateDto {
  @ApiProperty() intent: string;
  @ApiProperty() confidence: number;
}

export class DecisionLabelDto {
  @ApiProperty({ nullable: true, type: String, description: 'null = out of scope' }) intent: string | null;
  @ApiProperty({ format: 'date-time' }) labelledAt: string;
}

export class DecisionDto implements Serialized<StoredDecision> {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'date-time', description: 'When the router decided' }) createdAt: string;
  @ApiProperty({ enum: DECISION_SOURCES }) source: Serialized<StoredDecision>['source'];
  @ApiProperty({ nullable: true, type: String, format: 'uuid', description: 'The chat session (source chat)' }) sessionId: string | null;
  @ApiProperty() message: string;
  @ApiProperty({ description: 'The tenant config version the router used (intent_tenant_config.config_version)' }) configVersion: string;
  @ApiProperty({ description: 'The rules version the router used (intent_tenant_config.rules_version)' }) rulesVersion: string;
  @ApiProperty({ nullable: true, type: String, description: 'finalIntent (null: no intent)' }) intent: string | null;
  @ApiProperty({ enum: STORED_DECISION_REASONS, description: 'decisionReason' }) reason: string;
  @ApiProperty() needClarify: boolean;
  @ApiProperty({ description: 'finalConfidence' }) confidence: number;
  @ApiProperty({ type: [DecisionCandidateDto] }) candidates: DecisionCandidateDto[];
  @ApiProperty({ type: 'object', additionalProperties: true, description: 'The routeTrace (docs/spec/intent-routing.md)' }) trace: Record<string, unknown>;
  @ApiProperty({ description: 'Routing time in ms (router lookup + routing)' }) latencyMs: number;
  @ApiProperty({ type: DecisionLabelDto, nullable: true, description: "The operator's label (review set), if any" }) label: DecisionLabelDto | null;
}

export class DecisionPageDto implements Serialized<Page<StoredDecision>> {
  @ApiProperty({ type: [DecisionDto] }) items: DecisionDto[];
  @ApiProperty({ nullable: true, type: String }) nextCursor: string | null;
}
