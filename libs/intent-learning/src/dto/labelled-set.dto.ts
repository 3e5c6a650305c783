import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Matches } from 'class-validator';
import { PageQueryDto } from '@arbiter/common';
import { LABELLED_LIMITS, LABELLED_SET_NAME } from '../labelled-data.js';
import type { StoredLabelledExample, StoredLabelledSet } from '../labelled-set.repository.js';
import type { SnapshotResult } from '../labelled-snapshot.service.js';
import type { Page, Serialized } from '@arbiter/common';

const NAME_DOC = `1-${LABELLED_LIMITS.nameLength} letters, digits, "_", "-" or ".", starting with a letter or digit`;

export class LabelledSetNameQueryDto {
  @ApiPropertyOptional({ description: `Set name (${NAME_DOC}); for a JSONL body, where it cannot go into the body`, example: 'clinc150-train' })
  @IsOptional()
  @IsString()
  @Matches(LABELLED_SET_NAME, { message: `name must be ${NAME_DOC}` })
  name?: string;
}

export class ListLabelledSetsQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ description: 'Only the versions of this set name', example: 'clinc150-train' })
  @IsOptional()
  @IsString()
  @Matches(LABELLED_SET_NAME, { message: `name must be ${NAME_DOC}` })
  name?: string;
}

export class LabelledExampleInputDto {
  @ApiProperty({ maxLength: LABELLED_LIMITS.textLength, example: 'how do I reset the arm' }) text: string;
  @ApiProperty({ nullable: true, type: String, maxLength: LABELLED_LIMITS.intentLength, example: 'reset_arm', description: 'null = out of scope' })
  intent: string | null;
}

/** The JSON form of an upload (the JSONL form is `application/x-ndjson` with `?name=`). */
export class UploadLabelledSetDto {
  @ApiProperty({ description: NAME_DOC, example: 'clinc150-train' }) name: string;
  @ApiProperty({ type: [LabelledExampleInputDto], maxItems: LABELLED_LIMITS.examples }) examples: LabelledExampleInputDto[];
}

export class LabelledSetDto implements Serialized<StoredLabelledSet> {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() name: string;
  @ApiProperty({ description: 'Uploads of one name are numbered 1, 2, …; the review set is always 1' }) version: number;
  @ApiProperty({ enum: ['upload', 'review'], description: 'upload, or review: the labels operators put on logged decisions' })
  kind: Serialized<StoredLabelledSet>['kind'];
  @ApiProperty() exampleCount: number;
  @ApiProperty({ description: 'Examples labelled out of scope (intent null)' }) outOfScopeCount: number;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'date-time' }) updatedAt: string;
}

export class LabelledSetPageDto implements Serialized<Page<StoredLabelledSet>> {
  @ApiProperty({ type: [LabelledSetDto] }) items: LabelledSetDto[];
  @ApiProperty({ nullable: true, type: String }) nextCursor: string | null;
}

export class LabelledExampleDto implements Serialized<StoredLabelledExample> {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ nullable: true, type: Number, description: 'Line (JSONL) or 1-based position (JSON array) in the upload; null for review labels' })
  line: number | null;
  @ApiProperty() text: string;
  @ApiProperty({ nullable: true, type: String, description: 'null = out of scope' }) intent: string | null;
  @ApiProperty({ nullable: true, type: String, format: 'uuid', description: 'The labelled decision (review set)' }) decisionId: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
}

export class LabelledExamplePageDto implements Serialized<Page<StoredLabelledExample>> {
  @ApiProperty({ type: [LabelledExampleDto] }) items: LabelledExampleDto[];
  @ApiProperty({ nullable: true, type: String }) nextCursor: string | null;
}

export class LabelledSetDetailDto extends LabelledSetDto {
  @ApiProperty({ type: LabelledExamplePageDto, description: 'One page of examples (newest first; `limit`/`cursor` of the request)' })
  examples: LabelledExamplePageDto;
}

export class LabelledSnapshotRequestDto {
  @ApiProperty({ example: 'from-feedback', description: 'Set name; the snapshot is its next version' }) name: string;
  @ApiProperty({
    type: [String],
    enum: ['review', 'bad_cases', 'case_library'],
    example: ['review', 'bad_cases', 'case_library'],
    description: 'Sources in order of precedence',
  })
  sources: string[];
}

export class SnapshotCountsDto {
  @ApiProperty() review: number;
  @ApiProperty() bad_cases: number;
  @ApiProperty() case_library: number;
}

export class LabelledSnapshotDto implements Serialized<SnapshotResult> {
  @ApiProperty({ type: LabelledSetDto }) set: LabelledSetDto;
  @ApiProperty({ type: SnapshotCountsDto, description: 'Examples taken from each source' }) counts: SnapshotCountsDto;
  @ApiProperty({ description: 'Messages already labelled by an earlier source' }) duplicates: number;
  @ApiProperty({ type: [String], description: 'Intents without a rule: their labels were left out' }) unknownIntents: string[];
  @ApiProperty({ description: 'Labels beyond the set limit, left out' }) truncated: number;
}
