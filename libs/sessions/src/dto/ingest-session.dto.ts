import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsIn, IsInt, IsNumber, IsOptional, IsString, Max, MaxLength, Min, ValidateNested } from 'class-validator';
import { NotBlank } from '@arbiter/common';
import { MediaDto } from './media.dto.js';
import { ChannelField, ConversationIdField, MediaListField, UserRefField } from './turn-fields.js';

export const MAX_TEXT_LENGTH = 20_000;

export class ReferenceDto {
  @ApiPropertyOptional({ description: "Knowledge document id, when the agent used Arbiter's knowledge base" })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  documentId?: string;

  @ApiPropertyOptional({ example: 'manuals/servo-alarm.md' })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  filePath?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(500)
  title?: string;

  @ApiProperty({ description: 'Relevance score of the reference (0..1 similarity)', example: 0.82, minimum: 0, maximum: 1 })
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(1)
  score: number;
}

export class IngestSessionDto {
  @ConversationIdField('Continue this conversation; omitted → a new conversation')
  conversationId?: string;

  @ChannelField()
  channel?: string;

  @UserRefField()
  userRef?: string;

  @ApiProperty({ description: 'The user message', maxLength: MAX_TEXT_LENGTH })
  @IsString()
  @NotBlank()
  @MaxLength(MAX_TEXT_LENGTH)
  query: string;

  @ApiPropertyOptional({ description: "The agent's final answer", maxLength: MAX_TEXT_LENGTH })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_TEXT_LENGTH)
  answer?: string;

  @ApiProperty({ enum: ['SUCCESS', 'FAILED'] })
  @IsIn(['SUCCESS', 'FAILED'])
  status: 'SUCCESS' | 'FAILED';

  @ApiPropertyOptional({ minimum: 0, maximum: 1000, default: 0 })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(1000)
  stepCount?: number;

  @ApiPropertyOptional({ minimum: 0, maximum: 1000, default: 0 })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(1000)
  toolCallCount?: number;

  @ApiPropertyOptional({ type: [ReferenceDto], maxItems: 100 })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @ValidateNested({ each: true })
  @Type(() => ReferenceDto)
  references?: ReferenceDto[];

  @MediaListField()
  media?: MediaDto[];

  @ApiPropertyOptional({ description: 'Whether the agent searched the knowledge base (default: true when references are given)' })
  @IsOptional()
  @IsBoolean()
  knowledgeSearched?: boolean;

  @ApiPropertyOptional({ description: 'End-to-end latency of the agent run in milliseconds', minimum: 0 })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(3_600_000)
  latencyMs?: number;
}
