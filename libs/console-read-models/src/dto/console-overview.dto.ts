import { ApiProperty } from '@nestjs/swagger';
import { CoverageGapDto } from '@arbiter/coverage';
import { JOB_RUN_STATUSES } from '@arbiter/jobs';
import type { ConfidenceBin, Reliability, ReliabilityPoint } from '../overview-shaping.js';
import type { Serialized } from '@arbiter/common';

export class OverviewWindowDto {
  @ApiProperty({ description: 'First day, inclusive', example: '2026-03-01' }) from: string;
  @ApiProperty({ description: 'Last day, inclusive', example: '2026-03-30' }) to: string;
  @ApiProperty({ description: "The tenant's time zone the days are read in", example: 'UTC' }) timeZone: string;
  @ApiProperty({ type: String, nullable: true, description: 'The channel filter, null for every channel', example: 'web' }) channel: string | null;
}

export class OverviewCoverageDayDto {
  @ApiProperty({ example: '2026-03-01' }) date: string;
  @ApiProperty({ description: 'Sessions with a coverage decision of the current evaluator version' }) evaluated: number;
  @ApiProperty() covered: number;
  @ApiProperty({ type: Number, nullable: true, description: 'covered / evaluated (4 decimals); null without decisions' }) rate: number | null;
}

export class OverviewTotalsDto {
  @ApiProperty({ description: 'Sessions created in the window' }) sessions: number;
  @ApiProperty({ type: Number, nullable: true, description: 'Coverage rate of the window (4 decimals); null without decisions' }) coverageRate: number | null;
  @ApiProperty({ description: 'Sessions whose current feedback is useful' }) useful: number;
  @ApiProperty({ description: 'Sessions whose current feedback is not useful' }) notUseful: number;
  @ApiProperty({ description: 'Sessions in status BAD_CASE' }) badCases: number;
}

export class ConfidenceBinDto implements Serialized<ConfidenceBin> {
  @ApiProperty({ description: 'Lower bound, inclusive', example: 80 }) from: number;
  @ApiProperty({ description: 'Upper bound, exclusive (the last bin includes 100)', example: 90 }) to: number;
  @ApiProperty({ description: 'Sessions whose self-evaluation confidence falls in the bin' }) count: number;
}

export class ReliabilityPointDto implements Serialized<ReliabilityPoint> {
  @ApiProperty({ description: 'Fused confidence (0..1)', example: 0.42 }) x: number;
  @ApiProperty({ description: 'Calibrated probability (0..1)', example: 0.37 }) y: number;
}

export class ReliabilityDto implements Serialized<Reliability> {
  @ApiProperty({ enum: ['isotonic'] }) method: 'isotonic';
  @ApiProperty({ description: 'Observations the calibration was fitted on' }) samples: number;
  @ApiProperty({ type: [ReliabilityPointDto], description: 'The stored knots, x ascending (linear between them)' }) points: ReliabilityPointDto[];
}

export class OverviewJobFailureDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ example: 'coverage.backfill' }) name: string;
  @ApiProperty({ type: String, nullable: true }) error: string | null;
  @ApiProperty({ type: String, nullable: true, format: 'date-time' }) finishedAt: string | null;
}

export class OverviewJobsDto {
  @ApiProperty({
    description: `Runs created in the window per status (${JOB_RUN_STATUSES.join(', ')}), zeros included`,
    type: 'object',
    additionalProperties: { type: 'integer' },
  })
  byStatus: Record<string, number>;
  @ApiProperty({
    type: [OverviewJobFailureDto],
    description: 'The 5 most recently created failed runs (any time, as GET /admin/jobs?status=failed lists them)',
  })
  recentFailures: OverviewJobFailureDto[];
}

export class ConsoleOverviewDto {
  @ApiProperty({ type: OverviewWindowDto }) window: OverviewWindowDto;
  @ApiProperty({ type: [OverviewCoverageDayDto], description: 'Every day of the window, zero days included' }) coverageByDay: OverviewCoverageDayDto[];
  @ApiProperty({ type: OverviewTotalsDto }) totals: OverviewTotalsDto;
  @ApiProperty({
    description: 'Sessions per route-trace decision reason (reasons the monitoring stats do not know count as `other`); zero counts are absent',
    type: 'object',
    additionalProperties: { type: 'integer' },
  })
  decisionReasons: Record<string, number>;
  @ApiProperty({ type: [ConfidenceBinDto], description: 'Ten bins of width 10 of the self-evaluation confidence (0..100), zeros included' })
  confidenceHistogram: ConfidenceBinDto[];
  @ApiProperty({
    type: ReliabilityDto,
    nullable: true,
    description: "The intent router's isotonic calibration as stored in the tenant's config; null without one",
  })
  reliability: ReliabilityDto | null;
  @ApiProperty({ type: [CoverageGapDto], description: 'The 5 most frequent gaps, as GET /admin/coverage/gaps gives them' }) topGaps: CoverageGapDto[];
  @ApiProperty({ type: OverviewJobsDto }) jobs: OverviewJobsDto;
}
