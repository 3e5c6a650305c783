import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { DocumentSummary } from '../knowledge.repository.js';
import type { BulkItemResult, UpsertResult } from '../knowledge.service.js';
import type { FusionSettings } from '../lexical/fusion-settings.js';
import type { LookupResult, LookupResultItem } from '../lookup.service.js';
import type { ChunkView } from '../knowledge-chunk.repository.js';
import type { RetrievalConfidence } from '../retrieval-confidence.js';
import { CONFIDENCE_PROFILES } from '../retrieval-confidence.js';
import type { CalibrationCuts } from '../lexical/calibration.js';
import type { AnswerabilityModel } from '../lexical/answerability.js';
import type { GradingMetrics } from '../lexical/calibration-fit.js';
import type { GradingFitResult, GradingView } from '../grading.service.js';
import type { ImportStarted, ImportStatus } from '../knowledge-import.service.js';
import type { FileError } from '../files/knowledge-files.repository.js';
import type { UploadStarted, UploadedFileView } from '../files/knowledge-files.service.js';
import type { Page, Serialized } from '@arbiter/common';

export class DocumentSummaryDto implements Serialized<DocumentSummary> {
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
  @ApiProperty({
    format: 'uuid',
    nullable: true,
    type: String,
    description: 'The uploaded file the document was made from (download: GET /admin/knowledge/documents/{id}/file); null for documents posted as JSON',
  })
  fileId: string | null;
  @ApiProperty({
    nullable: true,
    type: String,
    example: 'application/pdf',
    description: "The file's media type, sniffed from its bytes; null for JSON documents",
  })
  mediaType: string | null;
  @ApiProperty({ nullable: true, type: Number, description: 'Pages of a PDF; null otherwise' }) pageCount: number | null;
  @ApiProperty() createdAt: string;
  @ApiProperty() updatedAt: string;
}

export class DocumentDetailDto extends DocumentSummaryDto implements Serialized<DocumentSummary & { content: string }> {
  @ApiProperty() content: string;
}

export class UpsertResultDto implements Serialized<UpsertResult> {
  @ApiProperty({ enum: ['created', 'updated', 'unchanged'] }) status: Serialized<UpsertResult>['status'];
  @ApiProperty({ type: DocumentSummaryDto }) document: DocumentSummaryDto;
}

export class BulkItemErrorDto {
  @ApiPropertyOptional() code?: string;
  @ApiProperty() message: string;
  @ApiPropertyOptional({ type: [String] }) fields?: string[];
}

export class BulkItemResultDto implements Serialized<BulkItemResult> {
  @ApiProperty() index: number;
  @ApiProperty({ nullable: true, type: String }) filePath: string | null;
  @ApiProperty({ enum: ['created', 'updated', 'unchanged', 'failed'] }) status: Serialized<BulkItemResult>['status'];
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

export class DocumentPageDto implements Serialized<Page<DocumentSummary>> {
  @ApiProperty({ type: [DocumentSummaryDto] }) items: DocumentSummaryDto[];
  @ApiProperty({ nullable: true, type: String }) nextCursor: string | null;
}

export class NormalizationSettingsDto {
  @ApiProperty({ example: 2.0 }) maxL2Distance: number;
  @ApiProperty({ example: 0.75 }) highlyRelevantThreshold: number;
  @ApiProperty({ example: 0.5 }) referenceThreshold: number;
}

export class FusionSettingsDto implements Serialized<FusionSettings> {
  @ApiProperty({ example: 1 }) lexicalWeight: number;
  @ApiProperty({ example: 1 }) vectorWeight: number;
  @ApiProperty({ example: 0.5 }) exactWeight: number;
  @ApiProperty({ example: 60 }) rrfK: number;
}

export class RetrievalSettingsViewDto {
  @ApiProperty({ type: NormalizationSettingsDto }) normalization: NormalizationSettingsDto;
  @ApiProperty({ type: FusionSettingsDto }) fusion: FusionSettingsDto;
  @ApiProperty({
    enum: ['default', 'fitted'],
    description: 'Whether grades use the built-in calibration or one fitted for this tenant (GET /admin/knowledge/grading)',
  })
  calibrationSource: string;
  @ApiProperty({ type: 'object', additionalProperties: true, description: "The chat's default metadata filter of lookups; {} for none" })
  defaultFilter: Record<string, unknown>;
  @ApiProperty() memoryTtlSeconds: number;
  @ApiProperty() chunkSize: number;
  @ApiProperty() chunkOverlap: number;
}

export class LookupResultItemDto implements Serialized<LookupResultItem> {
  @ApiProperty({ format: 'uuid' }) documentId: string;
  @ApiProperty() filePath: string;
  @ApiProperty() title: string;
  @ApiProperty() domain: string;
  @ApiProperty({ description: "The document's best-matching chunk" }) content: string;
  @ApiProperty({ description: 'L2 distance in [0, 2] (L0 hits: 0)' }) distance: number;
  @ApiProperty({ description: '1 − min(d, maxL2Distance)/maxL2Distance' }) similarity: number;
  @ApiProperty({
    minimum: 0,
    maximum: 1,
    description: 'Calibrated relevance on the same scale as the thresholds: how likely this is the document asked about (lexical and vector evidence)',
  })
  relevance: number;
  @ApiProperty({
    description: "Chunks of the document that matched the query's words; more than one scores the `impact` scenario (docs/spec/evaluation.md §2 发现多处引用)",
  })
  matches: number;
  @ApiProperty({ enum: ['L0', 'L1'], description: 'L0: the query contains its title or a keyword' }) source: Serialized<LookupResultItem>['source'];
  @ApiProperty({
    type: String,
    nullable: true,
    example: 'Manual.pdf',
    description: 'The uploaded file the document was made from; null for documents posted as JSON. A file may fill several results, one per matching section',
  })
  fileName: string | null;
  @ApiProperty({ type: Number, nullable: true, example: 48, description: "1-based first page of the result's chunk (PDF); null otherwise" }) page:
    number | null;
  @ApiProperty({ type: Number, nullable: true, example: 48, description: '1-based last page of the chunk (PDF); null otherwise' }) pageEnd: number | null;
  @ApiProperty({
    type: [String],
    nullable: true,
    example: ['1 Getting started', '1.4 Configuration', '1.4.7 Setting a default editor'],
    description: "The chunk's section: its heading path, outermost first; null without one",
  })
  section: string[] | null;
}

export class ChunkViewDto implements Serialized<ChunkView> {
  @ApiProperty({ description: '0-based position in the document' }) chunkIndex: number;
  @ApiProperty() content: string;
  @ApiProperty({ type: Number, nullable: true, description: '1-based first page (PDF); null otherwise' }) page: number | null;
  @ApiProperty({ type: Number, nullable: true, description: '1-based last page (PDF); null otherwise' }) pageEnd: number | null;
  @ApiProperty({ type: [String], nullable: true, description: 'Heading path, outermost first; null without one' }) section: string[] | null;
  @ApiProperty({ description: 'A disabled chunk is never returned by a lookup' }) disabled: boolean;
}

export class ChunkPageDto implements Serialized<Page<ChunkView>> {
  @ApiProperty({ type: [ChunkViewDto] }) items: ChunkViewDto[];
  @ApiProperty({ nullable: true, type: String }) nextCursor: string | null;
}

export class ConfidenceComponentsDto {
  @ApiProperty({ description: 'min(results / 5, 1) · 0.4' }) countScore: number;
  @ApiProperty({ description: 'mean relevance · 0.4 (0 without results)' }) qualityScore: number;
  @ApiProperty({ description: "0.2 when the profile's scenario holds" }) scenarioScore: number;
}

export class RetrievalConfidenceDto implements Serialized<RetrievalConfidence> {
  @ApiProperty({ minimum: 0, maximum: 1 }) score: number;
  @ApiProperty({ enum: ['high', 'medium', 'low'] }) level: Serialized<RetrievalConfidence>['level'];
  @ApiProperty({ type: [String], example: ['找到 3 个相关结果', '最高相关度 92%'] }) reasons: string[];
  @ApiProperty({ enum: ['high-confidence', 'medium-confidence', 'low-confidence'] }) event: Serialized<RetrievalConfidence>['event'];
  @ApiProperty({ enum: CONFIDENCE_PROFILES, nullable: true, description: 'The profile the thresholds came from (null when unknown: 0.6 / 0.3)' })
  profile: Serialized<RetrievalConfidence>['profile'];
  @ApiProperty({ type: ConfidenceComponentsDto, description: 'The parts of the score (countScore + qualityScore + scenarioScore)' })
  components: ConfidenceComponentsDto;
}

export class LookupResultDto implements Serialized<LookupResult> {
  @ApiProperty({ type: [LookupResultItemDto] }) results: LookupResultItemDto[];
  @ApiProperty({ enum: ['PRECISE', 'HIGHLY_RELEVANT', 'REFERENCE'] }) relevanceLevel: Serialized<LookupResult>['relevanceLevel'];
  @ApiProperty({ enum: ['PARTIAL', 'INSUFFICIENT'], nullable: true }) completenessHint: Serialized<LookupResult>['completenessHint'];
  @ApiProperty() l0MatchCount: number;
  @ApiProperty({ nullable: true, type: Number }) l1TopSimilarity: number | null;
  @ApiProperty({ nullable: true, type: String }) domain: string | null;
  @ApiProperty({ type: [String] }) retrievedDomainsThisSession: string[];
  @ApiProperty({ enum: ['doc_retrieved', 'domain_retrieved'], nullable: true }) dedupReason: Serialized<LookupResult>['dedupReason'];
  @ApiProperty({ type: RetrievalConfidenceDto }) confidence: RetrievalConfidenceDto;
}

export class CalibrationCutsDto implements Serialized<CalibrationCuts> {
  @ApiProperty({ description: 'Probability mapped to referenceThreshold' }) reference: number;
  @ApiProperty({ description: 'Probability mapped to highlyRelevantThreshold' }) highlyRelevant: number;
}

export class AnswerabilityModelDto implements Serialized<AnswerabilityModel> {
  @ApiProperty({ type: [Number], description: 'Logistic weights in the order of `answerabilityFeatures`' }) weights: number[];
  @ApiProperty({ type: CalibrationCutsDto, description: 'The cuts grades are read with' }) cuts: CalibrationCutsDto;
}

export class GradingCalibrationDto {
  @ApiProperty({ type: [Number], description: 'Logistic weights of the ranking model, in the order of `features`' }) weights: number[];
  @ApiProperty({ type: CalibrationCutsDto, description: 'Cuts on the ranking probability (they grade only when there is no answerability model)' })
  cuts: CalibrationCutsDto;
  @ApiProperty({
    type: AnswerabilityModelDto,
    required: false,
    description: 'Answer-or-refuse model over question–passage agreement (docs/retrieval.md "Answerability"); absent in calibrations fitted before it',
  })
  answerability?: AnswerabilityModelDto;
}

export class GradingMetricsDto implements Serialized<GradingMetrics> {
  @ApiProperty() lookups: number;
  @ApiProperty() answerable: number;
  @ApiProperty({ description: 'Share of answerable questions whose top result is right' }) hitAt1: number;
  @ApiProperty({ description: 'Of right top results, the share graded INSUFFICIENT' }) rightInsufficient: number;
  @ApiProperty({ description: 'Of wrong top results (including unanswerable questions), the share graded PRECISE or HIGHLY_RELEVANT' }) wrongAnswered: number;
  @ApiProperty({ description: 'Of wrong top results, the share not graded INSUFFICIENT (PARTIAL included)' }) wrongNotInsufficient: number;
  @ApiProperty({ description: 'Of unanswerable questions, the share graded INSUFFICIENT' }) absentInsufficient: number;
}

export class GradingViewDto implements Serialized<GradingView> {
  @ApiProperty({ enum: ['default', 'fitted'] }) source: Serialized<GradingView>['source'];
  @ApiProperty({ description: 'Embedder the calibration applies to' }) embedder: string;
  @ApiProperty({ type: [String], description: "The ranking model's features" }) features: string[];
  @ApiProperty({ type: [String], description: "The answerability model's features" }) answerabilityFeatures: string[];
  @ApiProperty({ type: GradingCalibrationDto }) calibration: GradingCalibrationDto;
  @ApiProperty({ nullable: true, type: String, format: 'date-time' }) fittedAt: string | null;
  @ApiProperty({ nullable: true, type: GradingMetricsDto, description: 'Metrics of the stored fit on its labelled questions' })
  metrics: GradingMetricsDto | null;
}

export class GradingFitResultDto implements Serialized<GradingFitResult> {
  @ApiProperty({ description: 'False for a dry run' }) applied: boolean;
  @ApiProperty({ type: GradingViewDto }) grading: GradingViewDto;
  @ApiProperty({ type: GradingMetricsDto, description: 'The calibration in force before, on the same questions' }) before: GradingMetricsDto;
  @ApiProperty({ type: GradingMetricsDto, description: 'The fitted calibration, on the same questions (in-sample)' }) after: GradingMetricsDto;
  @ApiProperty({ description: 'Candidates learned from' }) samples: number;
}

export class ImportCountsDto {
  @ApiProperty() created: number;
  @ApiProperty() updated: number;
  @ApiProperty() unchanged: number;
  @ApiProperty() failed: number;
  @ApiProperty({ description: 'Items not written yet' }) pending: number;
}

export class ImportStartedDto implements Serialized<ImportStarted> {
  @ApiProperty({ format: 'uuid' }) importId: string;
  @ApiProperty({ format: 'uuid', nullable: true, type: String, description: 'The `retrieval.import` job run (GET /admin/jobs/:id)' }) jobId: string | null;
  @ApiProperty() total: number;
  @ApiProperty({ description: 'Valid items queued for writing' }) queued: number;
  @ApiProperty({ type: [BulkItemResultDto], description: 'Items refused at once (validation, a filePath repeated in the body)' }) failed: BulkItemResultDto[];
}

export class FileErrorDto implements Serialized<FileError> {
  @ApiProperty({
    example: 'PDF_ENCRYPTED',
    description:
      'UNSUPPORTED_TYPE, EMPTY_FILE, FILE_TOO_LARGE, PDF_ENCRYPTED, PDF_NO_TEXT, PDF_CORRUPT, PDF_TOO_MANY_PAGES, DOCX_INVALID, SHEET_INVALID, ARCHIVE_TOO_LARGE, TEXT_UNDECODABLE, SHEET_NO_QUESTION_ANSWER, NO_TEXT, PARSE_TIMEOUT',
  })
  code: string;
  @ApiProperty() message: string;
}

export class UploadedFileDto implements Serialized<UploadedFileView> {
  @ApiProperty({ example: 'manual.pdf' }) fileName: string;
  @ApiProperty({ nullable: true, type: String, example: 'application/pdf', description: 'Sniffed from the bytes; null when refused before its type was known' })
  mediaType: string | null;
  @ApiProperty({
    type: String,
    enum: ['queued', 'refused', 'created', 'updated', 'unchanged', 'failed'],
    description: '`refused` at the door (the upload stores nothing of it); `queued` until the import job reads it; then its outcome',
  })
  status: Serialized<UploadedFileView>['status'];
  @ApiPropertyOptional({ format: 'uuid', description: 'The document made from the file (an FAQ sheet: its first row)' }) documentId?: string;
  @ApiPropertyOptional({ type: FileErrorDto }) error?: FileErrorDto;
}

export class UploadStartedDto implements Serialized<UploadStarted> {
  @ApiProperty({ format: 'uuid', description: 'Follow it with GET /admin/knowledge/imports/:id' }) importId: string;
  @ApiProperty({ format: 'uuid', nullable: true, type: String, description: 'The `retrieval.import` job run (GET /admin/jobs/:id)' }) jobId: string | null;
  @ApiProperty({ type: [UploadedFileDto] }) files: UploadedFileDto[];
}

export class ImportStatusDto implements Serialized<ImportStatus> {
  @ApiProperty({ format: 'uuid' }) importId: string;
  @ApiProperty({ format: 'uuid', nullable: true, type: String }) jobId: string | null;
  @ApiProperty({ enum: ['queued', 'running', 'succeeded', 'failed'], description: "The job run's status; `succeeded` once every item has an outcome" })
  status: Serialized<ImportStatus>['status'];
  @ApiProperty() total: number;
  @ApiProperty({ description: 'Items with an outcome' }) done: number;
  @ApiProperty({ type: ImportCountsDto }) counts: ImportCountsDto;
  @ApiProperty({ type: [BulkItemResultDto], description: 'The first 100 failed items, in body order' }) failures: BulkItemResultDto[];
  @ApiPropertyOptional({ type: [UploadedFileDto], description: 'An import of uploaded files: every file with its outcome, in upload order' })
  files?: UploadedFileDto[];
  @ApiProperty() createdAt: string;
}
