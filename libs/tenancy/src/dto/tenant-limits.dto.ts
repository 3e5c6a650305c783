import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsUUID, Max, Min, ValidateIf, ValidateNested } from 'class-validator';
import type { ClassLimits, EffectiveLimits } from '../rate-limit/rate-limiter.js';
import type { Serialized } from '@arbiter/common';

const MAX_PER_MINUTE = 10_000_000;

export class ClassLimitChangeDto {
  @ApiPropertyOptional({
    type: Number,
    nullable: true,
    minimum: 0,
    description: 'Requests per minute for the whole tenant; 0 = unlimited; null = the configured default',
  })
  @IsOptional()
  @ValidateIf((_o, v) => v !== null)
  @IsInt()
  @Min(0)
  @Max(MAX_PER_MINUTE)
  perMinute?: number | null;

  @ApiPropertyOptional({
    type: Number,
    nullable: true,
    minimum: 0,
    description: 'Requests per minute for each key; 0 = unlimited; null = the configured default',
  })
  @IsOptional()
  @ValidateIf((_o, v) => v !== null)
  @IsInt()
  @Min(0)
  @Max(MAX_PER_MINUTE)
  perKeyPerMinute?: number | null;
}

/** Any subset of the route classes; a class or field left out keeps its value. */
export class TenantLimitsChangeDto {
  @ApiPropertyOptional({ type: ClassLimitChangeDto }) @IsOptional() @ValidateNested() @Type(() => ClassLimitChangeDto) chat?: ClassLimitChangeDto;
  @ApiPropertyOptional({ type: ClassLimitChangeDto }) @IsOptional() @ValidateNested() @Type(() => ClassLimitChangeDto) route?: ClassLimitChangeDto;
  @ApiPropertyOptional({ type: ClassLimitChangeDto }) @IsOptional() @ValidateNested() @Type(() => ClassLimitChangeDto) lookup?: ClassLimitChangeDto;
  @ApiPropertyOptional({ type: ClassLimitChangeDto }) @IsOptional() @ValidateNested() @Type(() => ClassLimitChangeDto) ingest?: ClassLimitChangeDto;
  @ApiPropertyOptional({ type: ClassLimitChangeDto }) @IsOptional() @ValidateNested() @Type(() => ClassLimitChangeDto) admin?: ClassLimitChangeDto;
}

export class ClassLimitsDto implements Serialized<ClassLimits> {
  @ApiProperty({ description: 'Requests per minute for the whole tenant (0 = unlimited)' }) perMinute: number;
  @ApiProperty({ description: 'Requests per minute for each key (0 = unlimited)' }) perKeyPerMinute: number;
}

export class EffectiveLimitsDto implements Serialized<EffectiveLimits> {
  @ApiProperty({ type: ClassLimitsDto }) chat: ClassLimitsDto;
  @ApiProperty({ type: ClassLimitsDto }) route: ClassLimitsDto;
  @ApiProperty({ type: ClassLimitsDto }) lookup: ClassLimitsDto;
  @ApiProperty({ type: ClassLimitsDto }) ingest: ClassLimitsDto;
  @ApiProperty({ type: ClassLimitsDto }) admin: ClassLimitsDto;
}

export class TenantIdParamDto {
  @ApiProperty({ format: 'uuid' })
  @IsUUID()
  id: string;
}
