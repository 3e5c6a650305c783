import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { StoredIntentReplay } from '../intent-replay.repository.js';
import type { Page, Serialized } from '@arbiter/common';

export class IntentReplayRequestDto {
  @ApiPropertyOptional({ format: 'date-time', description: 'Window start (inclusive); required unless decisionIds' }) from?: string;
  @ApiPropertyOptional({ format: 'date-time', description: 'Window end (inclusive); default now' }) to?: string;
  @ApiPropertyOptional({ type: [String], format: 'uuid', maxItems: 10_000, description: 'Explicit logged decisions instead of a window' })
  decisionIds?: string[];
  @ApiPropertyOptional({ type: Object, description: 'Candidate config override (keys of PUT /admin/intent-config), merged onto the live config' })
  config?: Record<string, unknown>;
  @ApiPropertyOptional({ type: [Object], description: 'A whole draft rule set (rules as POST /admin/intent-rules takes them) replacing the live rules' })
  rules?: Record<string, unknown>[];
}

export class IntentReplayWindowDto {
  @ApiProperty() from: string;
  @ApiProperty() to: string;
}

export class IntentReplayDto implements Serialized<StoredIntentReplay> {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ enum: ['queued', 'running', 'succeeded', 'failed'] }) status: Serialized<StoredIntentReplay>['status'];
  @ApiProperty({ type: IntentReplayWindowDto, nullable: true }) window: IntentReplayWindowDto | null;
  @ApiProperty({ type: [String], nullable: true }) decisionIds: string[] | null;
  @ApiProperty({ type: Object, description: '{config?, rules?} as requested' }) candidate: Record<string, unknown>;
  @ApiProperty({ description: 'Logged decisions in scope when requested' }) decisions: number;
  @ApiProperty({
    type: Object,
    nullable: true,
    description:
      '{total, changed, intentChanged, clarifyChanged, judgeWouldRun, transitions [{from, to, count}], reasonTransitions, byIntent, samples, labelled {total, accuracyBefore, accuracyAfter}, configVersion, rulesVersion}',
  })
  report: Record<string, unknown> | null;
  @ApiProperty({ nullable: true, type: String }) error: string | null;
  @ApiProperty({ nullable: true, type: String, format: 'uuid', description: 'The job run (GET /admin/jobs/:id shows progress)' }) jobId: string | null;
  @ApiProperty() createdAt: string;
  @ApiProperty({ nullable: true, type: String }) finishedAt: string | null;
}

export class IntentReplayPageDto implements Serialized<Page<StoredIntentReplay>> {
  @ApiProperty({ type: [IntentReplayDto] }) items: IntentReplayDto[];
  @ApiProperty({ nullable: true, type: String }) nextCursor: string | null;
}
