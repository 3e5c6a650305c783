import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class DocumentSummaryDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ example: 'robot-arm' }) domain: string;
  @ApiProperty({ example: 'manuals/servo-alarms.md' }) filePath: string;
  @ApiProperty() title: string;
  @ApiProperty({ type: [String] }) keywords: string[];
  @ApiProperty({ type: Object }) metadata: Record<string, unknown>;
  @ApiProperty({ description: 'SHA-256 of the content; re-posting identical content is a no-op' }) contentHash: string;
  @ApiProperty() chunkCount: number;
  @ApiProperty() version: number;
  @ApiProperty() contentLength: number;
  @ApiProperty() createdAt: string;
  @ApiProperty() updatedAt: string;
}

export class DocumentDetailDto extends DocumentSummaryDto {
  @ApiProperty() content: string;
}

export class UpsertResultDto {
  @ApiProperty({ enum: ['created', 'updated', 'unchanged'] }) status: string;
  @ApiProperty({ type: DocumentSummaryDto }) document: DocumentSummaryDto;
}

export class BulkItemErrorDto {
  @ApiPropertyOptional() code?: string;
  @ApiProperty() message: string;
  @ApiPropertyOptional({ type: [String] }) fields?: string[];
}

export class BulkItemResultDto {
  @ApiProperty() index: number;
  @ApiProperty({ nullable: true, type: String }) filePath: string | null;
  @ApiProperty({ enum: ['created', 'updated', 'unchanged', 'failed'] }) status: string;
  @ApiPropertyOptional() documentId?: string;
  @ApiPropertyOptional() chunkCount?: number;
  @ApiPropertyOptional({ type: BulkItemErrorDto }) error?: BulkItemErrorDto;
}

export class BulkSummaryDto {
  @ApiProperty() created: number;
  @ApiProperty() updated: number;
  @ApiProperty() unchanged: number;
  @ApiProperty() failed: number;
}

export class BulkImportResultDto {
  @ApiProperty({ type: [BulkItemResultDto] }) results: BulkItemResultDto[];
  @ApiProperty({ type: BulkSummaryDto }) summary: BulkSummaryDto;
}

export class DocumentPageDto {
  @ApiProperty({ type: [DocumentSummaryDto] }) items: DocumentSummaryDto[];
  @ApiProperty({ nullable: true, type: String }) nextCursor: string | null;
}

export class NormalizationSettingsDto {
  @ApiProperty({ example: 2.0 }) maxL2Distance: number;
  @ApiProperty({ example: 0.75 }) highlyRelevantThreshold: number;
  @ApiProperty({ example: 0.5 }) referenceThreshold: number;
}

export class RetrievalSettingsViewDto {
  @ApiProperty({ type: NormalizationSettingsDto }) normalization: NormalizationSettingsDto;
  @ApiProperty() memoryTtlSeconds: number;
  @ApiProperty() chunkSize: number;
  @ApiProperty() chunkOverlap: number;
}

export class LookupResultItemDto {
  @ApiProperty({ format: 'uuid' }) documentId: string;
  @ApiProperty() filePath: string;
  @ApiProperty() title: string;
  @ApiProperty() domain: string;
  @ApiProperty({ description: "The document's best-matching chunk" }) content: string;
  @ApiProperty({ description: 'L2 distance in [0, 2] (L0 hits: 0)' }) distance: number;
  @ApiProperty({ description: '1 − min(d, maxL2Distance)/maxL2Distance' }) similarity: number;
  @ApiProperty({ enum: ['L0', 'L1'] }) source: string;
}

export class RetrievalConfidenceDto {
  @ApiProperty({ minimum: 0, maximum: 1 }) score: number;
  @ApiProperty({ enum: ['high', 'medium', 'low'] }) level: string;
  @ApiProperty({ type: [String], example: ['找到 3 个相关结果', '最高相关度 92%'] }) reasons: string[];
  @ApiProperty({ enum: ['high-confidence', 'medium-confidence', 'low-confidence'] }) event: string;
}

export class LookupResultDto {
  @ApiProperty({ type: [LookupResultItemDto] }) results: LookupResultItemDto[];
  @ApiProperty({ enum: ['PRECISE', 'HIGHLY_RELEVANT', 'REFERENCE'] }) relevanceLevel: string;
  @ApiProperty({ enum: ['PARTIAL', 'INSUFFICIENT'], nullable: true }) completenessHint: string | null;
  @ApiProperty() l0MatchCount: number;
  @ApiProperty({ nullable: true, type: Number }) l1TopSimilarity: number | null;
  @ApiProperty({ nullable: true, type: String }) domain: string | null;
  @ApiProperty({ type: [String] }) retrievedDomainsThisSession: string[];
  @ApiProperty({ enum: ['doc_retrieved', 'domain_retrieved'], nullable: true }) dedupReason: string | null;
  @ApiProperty({ type: RetrievalConfidenceDto }) confidence: RetrievalConfidenceDto;
}
