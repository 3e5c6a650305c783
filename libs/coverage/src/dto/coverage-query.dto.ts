import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsIn, IsInt, IsOptional, IsString, Length, Max, Min, ValidateBy, type ValidationOptions } from 'class-validator';
import { isCalendarDate, isTimeZone } from '../report-range.js';
import { REPORT_GROUPS, type ReportGroup } from '../coverage.service.js';

export function IsCalendarDate(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy({ name: 'isCalendarDate', validator: { validate: (v) => typeof v === 'string' && isCalendarDate(v), defaultMessage: () => '$property must be a calendar date YYYY-MM-DD' } }, options);
}

export function IsTimeZoneName(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy({ name: 'isTimeZoneName', validator: { validate: (v) => typeof v === 'string' && isTimeZone(v), defaultMessage: () => '$property must be an IANA time zone such as UTC or Asia/Shanghai' } }, options);
}

const splitList = ({ value }: { value: unknown }): unknown => {
  if (typeof value === 'string') return value.split(',').map((s) => s.trim()).filter(Boolean);
  if (Array.isArray(value)) return value.flatMap((v) => (typeof v === 'string' ? v.split(',').map((s) => s.trim()).filter(Boolean) : [v]));
  return value;
};

/** Window and filters shared by the report and the gap list. */
export class CoverageWindowQueryDto {
  @ApiPropertyOptional({ description: 'First day (inclusive) in the time zone; default 29 days before `to`', example: '2026-03-01' })
  @IsOptional()
  @IsCalendarDate()
  from?: string;

  @ApiPropertyOptional({ description: 'Last day (inclusive) in the time zone; default today. Must not be before `from`; at most 366 days', example: '2026-03-31' })
  @IsOptional()
  @IsCalendarDate()
  to?: string;

  @ApiPropertyOptional({ description: 'Only sessions of this channel', example: 'web' })
  @IsOptional()
  @IsString()
  @Length(1, 32)
  channel?: string;

  @ApiPropertyOptional({ description: "Time zone for day boundaries; default the tenant's (UTC unless configured)", example: 'Asia/Shanghai' })
  @IsOptional()
  @IsTimeZoneName()
  timeZone?: string;

  @ApiPropertyOptional({ description: 'Evaluator version; default the current one', example: 'v1' })
  @IsOptional()
  @IsString()
  @Length(1, 16)
  evaluatorVersion?: string;
}

export class CoverageReportQueryDto extends CoverageWindowQueryDto {
  @ApiPropertyOptional({
    description: 'Breakdowns to return (comma-separated or repeated): day, channel, reason, layer (uncovered sessions by failure layer; reads each uncovered session, so only when asked). Default day, channel, reason.',
    enum: REPORT_GROUPS,
    isArray: true,
    example: 'day',
  })
  @IsOptional()
  @Transform(splitList)
  @ArrayMinSize(1)
  @ArrayMaxSize(REPORT_GROUPS.length)
  @IsIn(REPORT_GROUPS, { each: true, message: `groupBy must be one of ${REPORT_GROUPS.join(', ')}` })
  groupBy?: ReportGroup[];
}

export class CoverageGapsQueryDto extends CoverageWindowQueryDto {
  @ApiPropertyOptional({ description: 'Most frequent gaps to return (1..500)', default: 50, minimum: 1, maximum: 500 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(500)
  limit?: number;
}

export class ReEvaluateDto {
  @ApiPropertyOptional({ description: 'Evaluator version to backfill; default the current one', example: 'v1' })
  @IsOptional()
  @IsString()
  @Length(1, 16)
  evaluatorVersion?: string;

  @ApiPropertyOptional({ description: "Only sessions created on or after this day (tenant's time zone); default no bound", example: '2026-01-01' })
  @IsOptional()
  @IsCalendarDate()
  from?: string;

  @ApiPropertyOptional({ description: "Only sessions created on or before this day (tenant's time zone); default no bound", example: '2026-03-31' })
  @IsOptional()
  @IsCalendarDate()
  to?: string;
}

export class JobAcceptedDto {
  @ApiProperty({ description: 'Follow it with GET /admin/jobs/{jobId}' })
  jobId: string;
}
