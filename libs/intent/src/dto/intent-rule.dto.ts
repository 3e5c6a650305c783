import { ApiProperty, ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMinSize,
  ValidateNested,
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsDefined,
  IsIn,
  IsInt,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateIf,
} from 'class-validator';
import { NotBlank, PageQueryDto } from '@arbiter/common';
import { INTENT_ACTIONS, INTENT_CONFIDENCE_PROFILES, INTENT_LIMITS } from '../intent.types.js';

const L = INTENT_LIMITS;

/**
 * The validated fields of an intent rule, documented without create-time defaults or examples: the PATCH
 * body is any subset of them (a mapped type), and `null` clears description, reply or intentVector.
 */
class IntentRuleFieldsDto {
  @ApiProperty({ maxLength: L.intentLength })
  @IsString()
  @NotBlank({ message: 'intent must not be blank' })
  @MaxLength(L.intentLength)
  intent: string;

  @ApiPropertyOptional({ type: String, maxLength: L.descriptionLength, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(L.descriptionLength)
  description?: string | null;

  @ApiPropertyOptional({ type: [String] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(L.keywords)
  @IsString({ each: true })
  @MinLength(1, { each: true })
  @MaxLength(L.keywordLength, { each: true })
  keywords?: string[];

  @ApiPropertyOptional({ type: [String] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(L.patterns)
  @IsString({ each: true })
  @MinLength(1, { each: true })
  @MaxLength(L.patternLength, { each: true })
  patterns?: string[];

  @ApiPropertyOptional({ type: [String] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(L.semanticExamples)
  @IsString({ each: true })
  @NotBlank({ each: true, message: 'each semantic example must not be blank' })
  @MaxLength(L.exampleLength, { each: true })
  semanticExamples?: string[];

  @ApiPropertyOptional({ type: [Number], nullable: true })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(L.vectorDimension)
  @IsNumber({ allowNaN: false, allowInfinity: false }, { each: true })
  intentVector?: number[] | null;

  @ApiPropertyOptional({ minimum: L.minPriority, maximum: L.maxPriority })
  @IsOptional()
  @IsInt()
  @Min(L.minPriority)
  @Max(L.maxPriority)
  priority?: number;

  @ApiPropertyOptional()
  @IsOptional()
  @IsBoolean()
  enabled?: boolean;

  @ApiPropertyOptional({ type: String, maxLength: L.replyLength, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(L.replyLength)
  reply?: string | null;

  @ApiPropertyOptional({ enum: INTENT_ACTIONS })
  @IsOptional()
  @IsIn(INTENT_ACTIONS)
  action?: (typeof INTENT_ACTIONS)[number];

  @ApiPropertyOptional({ enum: INTENT_CONFIDENCE_PROFILES })
  @IsOptional()
  @IsIn(INTENT_CONFIDENCE_PROFILES)
  confidenceProfile?: (typeof INTENT_CONFIDENCE_PROFILES)[number];
}

/**
 * `POST /admin/intent-rules`: the rule's fields with their create-time defaults and examples documented
 * (the re-declared properties only add documentation — with their type again, since a re-declared
 * property's decorator would otherwise take its reflected type; validation is the base class's). At least one
 * keyword, pattern, example or vector (checked after DTO validation).
 */
export class CreateIntentRuleDto extends IntentRuleFieldsDto {
  @ApiProperty({ example: '故障诊断' })
  declare intent: string;

  @ApiPropertyOptional({ type: String, example: '机械臂报警、故障排查 / fault diagnosis' })
  declare description?: string | null;

  @ApiPropertyOptional({ type: [String], example: ['报警', 'alarm'], description: 'Case-insensitive substrings' })
  declare keywords?: string[];

  @ApiPropertyOptional({ type: [String], example: ['(错误|报警)码\\s*[A-Z]?\\d+'], description: 'RE2 regular expressions (case-insensitive, linear time)' })
  declare patterns?: string[];

  @ApiPropertyOptional({ type: [String], example: ['机械臂报警了怎么办', 'the arm shows an alarm'], description: 'Embedded once when saved' })
  declare semanticExamples?: string[];

  @ApiPropertyOptional({ type: [Number], description: "Mode A vector; its dimension must equal the embedding provider's" })
  declare intentVector?: number[] | null;

  @ApiPropertyOptional({ default: 0 })
  declare priority?: number;

  @ApiPropertyOptional({ default: true })
  declare enabled?: boolean;

  @ApiPropertyOptional({ type: String, description: 'Canned reply (action "answer")' })
  declare reply?: string | null;

  @ApiPropertyOptional({ default: 'knowledge' })
  declare action?: (typeof INTENT_ACTIONS)[number];

  @ApiPropertyOptional({ default: 'search', description: 'Confidence profile used by the retrieval confidence' })
  declare confidenceProfile?: (typeof INTENT_CONFIDENCE_PROFILES)[number];
}

/** `PATCH /admin/intent-rules/:id`: any subset of the rule's fields; `null` clears description, reply or intentVector. */
export class UpdateIntentRuleDto extends PartialType(IntentRuleFieldsDto) {}

export class ListIntentRulesQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ description: 'Only rules of this intent', maxLength: L.intentLength })
  @IsOptional()
  @IsString()
  @MaxLength(L.intentLength)
  intent?: string;
}

export class RouteIntentDto {
  @ApiProperty({ example: '机械臂报警 E102 怎么处理', maxLength: L.messageLength })
  @IsString()
  @NotBlank({ message: 'message must not be empty or whitespace-only' })
  @MaxLength(L.messageLength)
  message: string;
}

export class EvaluationExampleDto {
  @ApiProperty({ maxLength: L.messageLength })
  @IsString()
  @NotBlank({ message: 'text must not be blank' })
  @MaxLength(L.messageLength)
  text: string;

  @ApiProperty({ type: String, nullable: true, description: 'Expected intent; null = out of scope (expects no_match)' })
  @IsDefined({ message: 'intent must be a string or null' })
  @ValidateIf((o: EvaluationExampleDto) => o.intent !== null)
  @IsString()
  @MaxLength(L.intentLength)
  intent: string | null;
}

/** The evaluation body's options (validated by class-validator; the examples are checked by checkLabelledExamples). */
export class EvaluateOptionsDto {
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: 'A partial config override to evaluate instead of the saved one (not saved)',
  })
  @IsOptional()
  @IsObject()
  config?: Record<string, unknown>;

  @ApiPropertyOptional({ minimum: 1, maximum: 100, default: 10 })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(100)
  topConfusions?: number;
}

/** The documented body of POST /admin/intent-rules/evaluate (see parseEvaluateBody). */
export class EvaluateIntentRulesDto extends EvaluateOptionsDto {
  @ApiProperty({ type: [EvaluationExampleDto], minItems: 1, maxItems: L.evaluationExamples })
  examples: EvaluationExampleDto[];
}

export class BulkCreateIntentRulesDto {
  @ApiProperty({
    type: [CreateIntentRuleDto],
    minItems: 1,
    maxItems: L.bulkRules,
    description: 'Created together (all or none), with one retrain of the router',
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(L.bulkRules)
  @ValidateNested({ each: true })
  @Type(() => CreateIntentRuleDto)
  rules: CreateIntentRuleDto[];
}
