import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { StoredIntentFit } from '../intent-fit.repository.js';
import type { Page, Serialized } from '@arbiter/common';

export class FitTargetsDto {
  @ApiPropertyOptional({ minimum: 0, maximum: 1, default: 0.5, description: 'Out-of-scope recall the fit must reach' }) minOutOfScopeRecall?: number;
  @ApiPropertyOptional({ minimum: 0, maximum: 1, default: 0.1, description: 'Clarify rate the fit must stay within' }) maxClarifyRate?: number;
}

export class IntentFitRequestDto {
  @ApiProperty({ format: 'uuid', description: 'The labelled set (one version) to fit on' }) labelledSetId: string;
  @ApiPropertyOptional({ type: FitTargetsDto }) targets?: FitTargetsDto;
}

export class FitLabelledSetRefDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() name: string;
  @ApiProperty() version: number;
}

export class IntentFitDto implements Serialized<StoredIntentFit> {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ enum: ['queued', 'running', 'succeeded', 'failed'] }) status: Serialized<StoredIntentFit>['status'];
  @ApiProperty({ type: FitLabelledSetRefDto }) labelledSet: FitLabelledSetRefDto;
  @ApiProperty({ type: FitTargetsDto }) targets: Serialized<StoredIntentFit>['targets'];
  @ApiProperty({ nullable: true, type: String, description: 'Config version the fit was computed on: send it as If-Match when applying' })
  configVersion: string | null;
  @ApiProperty({
    nullable: true,
    type: Object,
    description:
      '{feasible, proposed, proposedConfig (PUT-able, with calibration), before, after, crossValidated, reliability {raw, calibrated}, folds, configsSearched, targets} — docs/learning.md',
  })
  result: Record<string, unknown> | null;
  @ApiProperty({ nullable: true, type: String }) error: string | null;
  @ApiProperty({ nullable: true, type: String, format: 'uuid', description: 'The job run (GET /admin/jobs/:id)' }) jobId: string | null;
  @ApiProperty() createdAt: string;
  @ApiProperty({ nullable: true, type: String }) finishedAt: string | null;
}

export class IntentFitPageDto implements Serialized<Page<StoredIntentFit>> {
  @ApiProperty({ type: [IntentFitDto] }) items: IntentFitDto[];
  @ApiProperty({ nullable: true, type: String }) nextCursor: string | null;
}
