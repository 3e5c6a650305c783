import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Matches } from 'class-validator';
import { PageQueryDto } from '@arbiter/common';
import { JOB_RUN_STATUSES, JOB_TRIGGERS, type JobRunEntity, type JobRunStatus } from '../entities/job-run.entity.js';

export class ListJobRunsQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ example: 'coverage.backfill' })
  @IsOptional()
  @IsString()
  @Matches(/^[a-z0-9._-]{1,64}$/, { message: 'name must be a job name like coverage.backfill' })
  name?: string;

  @ApiPropertyOptional({ enum: JOB_RUN_STATUSES })
  @IsOptional()
  @IsIn(JOB_RUN_STATUSES)
  status?: JobRunStatus;
}

export class JobRunDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ example: 'coverage.backfill' }) name: string;
  @ApiProperty({ enum: JOB_TRIGGERS }) trigger: string;
  @ApiProperty({ enum: JOB_RUN_STATUSES }) status: string;
  @ApiProperty({ description: 'Items processed so far' }) processed: number;
  @ApiProperty({ description: 'Items that failed (reported, not fatal)' }) failed: number;
  @ApiProperty({ type: Number, nullable: true, description: 'Items the run will process when the handler knows it; null otherwise' }) total: number | null;
  @ApiProperty() attempts: number;
  @ApiProperty() maxAttempts: number;
  @ApiProperty({ type: Object }) payload: Record<string, unknown>;
  @ApiPropertyOptional({ type: Object, nullable: true }) details: Record<string, unknown> | null;
  @ApiProperty({ nullable: true, type: String }) error: string | null;
  @ApiProperty() createdAt: string;
  @ApiProperty({ nullable: true, type: String }) startedAt: string | null;
  @ApiProperty({ nullable: true, type: String }) finishedAt: string | null;
}

export class JobRunPageDto {
  @ApiProperty({ type: [JobRunDto] }) items: JobRunDto[];
  @ApiProperty({ nullable: true, type: String }) nextCursor: string | null;
}

export function toJobRunDto(run: JobRunEntity): JobRunDto {
  return {
    id: run.id,
    name: run.name,
    trigger: run.trigger,
    status: run.status,
    processed: run.processed,
    failed: run.failed,
    total: run.total,
    attempts: run.attempts,
    maxAttempts: run.maxAttempts,
    payload: run.payload,
    details: run.details,
    error: run.error,
    createdAt: run.createdAt.toISOString(),
    startedAt: run.startedAt?.toISOString() ?? null,
    finishedAt: run.finishedAt?.toISOString() ?? null,
  };
}
