import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsNumber, IsOptional, IsString, Matches, Max, MaxLength, Min, ValidateBy, type ValidationOptions } from 'class-validator';
import { PageQueryDto } from '@arbiter/common';
import { DEFAULT_SELF_EVALUATION_THRESHOLD } from '../agreement.js';
import { parseTimeBound } from '../time-bound.js';

export const SESSION_STATUS_FILTERS = ['PENDING', 'RUNNING', 'SUCCESS', 'FAILED', 'BAD_CASE'] as const;
export const STATS_GROUP_BY = ['day'] as const;
export type StatsGroupBy = (typeof STATS_GROUP_BY)[number];

export function IsTimeBound(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isTimeBound',
      validator: {
        validate: (v) => parseTimeBound(v) !== null,
        defaultMessage: () => '$property must be a calendar day YYYY-MM-DD or an ISO-8601 instant with a zone (2026-03-01T08:00:00Z)',
      },
    },
    options,
  );
}

const BOUND_DOC = "A day YYYY-MM-DD in the tenant's time zone (whole day) or an ISO-8601 instant with a zone";

export class ListConversationsQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ description: `Last activity at or after. ${BOUND_DOC}`, example: '2026-03-01' })
  @IsOptional()
  @IsTimeBound()
  from?: string;

  @ApiPropertyOptional({ description: `Last activity at or before (included). ${BOUND_DOC}`, example: '2026-03-31' })
  @IsOptional()
  @IsTimeBound()
  to?: string;

  @ApiPropertyOptional({ example: 'web' })
  @IsOptional()
  @IsString()
  @Matches(/^[a-z0-9_-]{1,32}$/i, { message: 'channel must be 1-32 letters, digits, "_" or "-"' })
  channel?: string;

  @ApiPropertyOptional({ enum: SESSION_STATUS_FILTERS, description: 'Only conversations with at least one session in this status' })
  @IsOptional()
  @IsIn(SESSION_STATUS_FILTERS)
  status?: (typeof SESSION_STATUS_FILTERS)[number];

  @ApiPropertyOptional({ description: 'Only conversations with at least one session routed to this intent', example: 'reset_arm' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  intent?: string;
}

export class StatsQueryDto {
  @ApiPropertyOptional({ description: `Sessions created at or after. ${BOUND_DOC}. Default: 29 days before \`to\``, example: '2026-03-01' })
  @IsOptional()
  @IsTimeBound()
  from?: string;

  @ApiPropertyOptional({ description: `Sessions created at or before (included). ${BOUND_DOC}. Default: end of today`, example: '2026-03-31' })
  @IsOptional()
  @IsTimeBound()
  to?: string;

  @ApiPropertyOptional({ enum: STATS_GROUP_BY, description: "Add a per-day breakdown (days in the tenant's time zone)" })
  @IsOptional()
  @IsIn(STATS_GROUP_BY)
  groupBy?: StatsGroupBy;

  @ApiPropertyOptional({
    enum: ['true', 'false'],
    description:
      "Add `agreement` (Cohen's κ of self-evaluation and of coverage against the feedback of the window). Off by default: the figures read the feedback rows of the window (~200 ms at 10k feedbacks), the rest of the stats reads rollups only",
  })
  @IsOptional()
  @IsIn(['true', 'false'])
  agreement?: 'true' | 'false';

  @ApiPropertyOptional({
    minimum: 0,
    maximum: 1,
    default: DEFAULT_SELF_EVALUATION_THRESHOLD,
    description:
      'With agreement=true: a self-evaluation with confidence / 100 at or above this reads as "good" (predicts useful). In [0, 1]; default 0.6, the LLM rubric\'s lower bound of "mostly supported"',
    example: 0.6,
  })
  @IsOptional()
  // A blank or repeated value is not a number (Number('') would be 0).
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' && value.trim() !== '' ? Number(value) : value === undefined ? undefined : NaN))
  @IsNumber({ allowNaN: false, allowInfinity: false }, { message: 'selfEvaluationThreshold must be a number in [0, 1]' })
  @Min(0, { message: 'selfEvaluationThreshold must be a number in [0, 1]' })
  @Max(1, { message: 'selfEvaluationThreshold must be a number in [0, 1]' })
  selfEvaluationThreshold?: number;
}
