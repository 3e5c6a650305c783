import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { COVERAGE_REASON_CODES } from '../evaluator/coverage.types.js';
import { FAILURE_LAYERS, FAILURE_REASONS } from '@arbiter/sessions';
import { REPORT_GROUPS } from '../coverage.service.js';
import type { CoverageCounts, CoverageGap, CoverageGaps, CoverageReport } from '../coverage.service.js';
import type { Serialized } from '@arbiter/common';

export class CoverageCountsDto implements Serialized<CoverageCounts> {
  @ApiProperty() total: number;
  @ApiProperty() covered: number;
  @ApiProperty() uncovered: number;
  @ApiProperty({ type: Number, nullable: true, description: 'covered / total (4 decimals); null with no decisions' }) coverageRate: number | null;
}

export class CoverageChannelCountsDto extends CoverageCountsDto {
  @ApiProperty() channel: string;
}

export class CoverageDayCountsDto extends CoverageCountsDto {
  @ApiProperty({ example: '2026-03-01' }) date: string;
}

export class CoverageReportDto extends CoverageCountsDto implements Serialized<CoverageReport> {
  @ApiProperty({ example: 'v1' }) evaluatorVersion: string;
  @ApiProperty({ example: '2026-03-01' }) from: string;
  @ApiProperty({ example: '2026-03-31' }) to: string;
  @ApiProperty({ example: 'UTC' }) timeZone: string;
  @ApiProperty({ type: String, nullable: true }) channel: string | null;
  @ApiProperty({ enum: REPORT_GROUPS, isArray: true }) groupBy: Serialized<CoverageReport>['groupBy'];
  @ApiPropertyOptional({ description: `Decisions per reason code (${COVERAGE_REASON_CODES.join(', ')}), zeros included`, type: 'object', additionalProperties: { type: 'integer' } })
  byReason?: Serialized<CoverageReport>['byReason'];
  @ApiPropertyOptional({ type: [CoverageChannelCountsDto] }) byChannel?: CoverageChannelCountsDto[];
  @ApiPropertyOptional({ type: [CoverageDayCountsDto], description: 'Every day of the window, zero days included' }) byDay?: CoverageDayCountsDto[];
  @ApiPropertyOptional({
    description: `Uncovered sessions per failure layer (${FAILURE_LAYERS.join(', ')}), zeros included (docs/learning.md "Failure attribution")`,
    type: 'object',
    additionalProperties: { type: 'integer' },
  })
  byLayer?: Serialized<CoverageReport>['byLayer'];
  @ApiPropertyOptional({
    description: `Uncovered sessions per attribution rule (${FAILURE_REASONS.join(', ')}), zeros included`,
    type: 'object',
    additionalProperties: { type: 'integer' },
  })
  byLayerReason?: Serialized<CoverageReport>['byLayerReason'];
}

export class CoverageGapDto implements Serialized<CoverageGap> {
  @ApiProperty({ description: 'Grouping key: case/width-folded, whitespace- and punctuation-free', example: '如何重置机械臂' }) normalizedText: string;
  @ApiProperty({ type: String, nullable: true, description: 'The most recent query of the group as written' }) sampleQuery: string | null;
  @ApiProperty() count: number;
  @ApiProperty() lastSeenAt: string;
  @ApiProperty({ enum: COVERAGE_REASON_CODES, isArray: true }) reasonCodes: Serialized<CoverageGap>['reasonCodes'];
  @ApiProperty({ type: [String], description: 'Up to 5 most recent sessions' }) sampleSessionIds: string[];
  @ApiProperty({ enum: FAILURE_LAYERS, nullable: true, description: "The group's most frequent failure layer (ties: the upstream one)" }) layer: Serialized<CoverageGap>['layer'];
  @ApiProperty({ description: "The group's sessions per failure layer, zeros included", type: 'object', additionalProperties: { type: 'integer' } })
  byLayer: Serialized<CoverageGap>['byLayer'];
}

export class CoverageGapsDto implements Serialized<CoverageGaps> {
  @ApiProperty() evaluatorVersion: string;
  @ApiProperty() from: string;
  @ApiProperty() to: string;
  @ApiProperty() timeZone: string;
  @ApiProperty({ type: String, nullable: true }) channel: string | null;
  @ApiProperty({ type: [CoverageGapDto] }) items: CoverageGapDto[];
}
