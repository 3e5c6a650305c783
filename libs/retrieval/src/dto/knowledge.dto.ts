import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { NotBlank, PageQueryDto } from '@arbiter/common';
import { CONFIDENCE_PROFILES } from '../retrieval-confidence.js';
import { FILTER_KEY_PATTERN, MAX_FILTER_KEYS } from '../metadata-filter.js';

/** The Swagger schema of a metadata filter: {<metadata key>: value | [values]} (docs/retrieval.md "Metadata filters"). */
const METADATA_FILTER_SCHEMA = {
  type: 'object' as const,
  additionalProperties: {
    oneOf: [
      { type: 'string' },
      { type: 'number' },
      { type: 'boolean' },
      { type: 'array', items: { oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }] } },
    ],
  },
  example: { model: ['RX-200', 'RX-300'], language: 'en' },
};

export class UpsertDocumentDto {
  @ApiProperty({ example: 'robot-arm', maxLength: 100 })
  @IsString()
  @NotBlank({ message: 'domain must not be blank' })
  @MaxLength(100)
  domain: string;

  @ApiProperty({ example: 'robot-arm/reset.md', description: 'Unique per tenant; re-posting the same path replaces the document.', maxLength: 1000 })
  @IsString()
  @NotBlank({ message: 'filePath must not be empty' })
  @MaxLength(1000)
  filePath: string;

  @ApiProperty({ example: '机械臂复位步骤', maxLength: 500 })
  @IsString()
  @NotBlank({ message: 'title must not be blank' })
  @MaxLength(500)
  title: string;

  @ApiProperty({ description: 'Document text (at most 2 MiB of UTF-8).' })
  @IsString()
  @IsNotEmpty()
  content: string;

  @ApiPropertyOptional({ type: [String], example: ['复位', 'reset'], description: 'L0 exact-hit keywords (matched case-insensitively in queries).' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @IsString({ each: true })
  @MinLength(1, { each: true })
  @MaxLength(200, { each: true })
  keywords?: string[];

  @ApiPropertyOptional({ type: 'object', additionalProperties: true })
  @IsOptional()
  @IsObject()
  metadata?: Record<string, unknown>;
}

export class ListDocumentsQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ maxLength: 100 })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  domain?: string;
}

export class LookupDto {
  @ApiProperty({ description: 'The agent run (session) this lookup belongs to; its action memory dedups results.', maxLength: 200 })
  @IsString()
  @NotBlank({ message: 'sessionId must not be blank' })
  @MaxLength(200)
  sessionId: string;

  @ApiProperty({ example: '机械臂无法复位怎么办', maxLength: 4000 })
  @IsString()
  @NotBlank({ message: 'query must not be empty' })
  @MaxLength(4000)
  query: string;

  @ApiPropertyOptional({ description: 'Restrict L0 and L1 to this domain', maxLength: 100 })
  @IsOptional()
  @IsString()
  @NotBlank({ message: 'domain must not be blank' })
  @MaxLength(100)
  domain?: string;

  @ApiPropertyOptional({ minimum: 1, maximum: 20, default: 5 })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(20)
  topK?: number;

  @ApiPropertyOptional({ description: 'Routed intent; its confidenceProfile drives the retrieval confidence', maxLength: 100 })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  intent?: string;

  @ApiPropertyOptional({ enum: CONFIDENCE_PROFILES, description: 'Overrides the profile resolved from the intent (default "search")' })
  @IsOptional()
  @IsIn(CONFIDENCE_PROFILES)
  confidenceProfile?: (typeof CONFIDENCE_PROFILES)[number];

  @ApiPropertyOptional({
    ...METADATA_FILTER_SCHEMA,
    description:
      "Metadata filter applied before ranking: {<metadata key>: value | [values]} — a document matches when each key's metadata value equals the value (or one of the values), or is an array holding it. " +
      `Keys match ${FILTER_KEY_PATTERN.source}, at most ${MAX_FILTER_KEYS}; values are strings, numbers or booleans. A bad filter is a 400 naming it (details.fields, e.g. filter.model).`,
  })
  @IsOptional()
  filter?: Record<string, unknown>;
}

/** Longest chunk text an operator may write (characters): above the largest chunk size setting (8192). */
export const MAX_CHUNK_CONTENT = 16_384;

export class ListChunksQueryDto extends PageQueryDto {}

export class EditChunkDto {
  @ApiPropertyOptional({ maxLength: MAX_CHUNK_CONTENT, description: "The chunk's corrected text: re-embedded and re-indexed in the same transaction" })
  @IsOptional()
  @IsString()
  @NotBlank({ message: 'content must not be blank' })
  @MaxLength(MAX_CHUNK_CONTENT)
  content?: string;

  @ApiPropertyOptional({ description: 'true: the chunk is never returned by a lookup; false: returned again' })
  @IsOptional()
  @IsBoolean()
  disabled?: boolean;
}

export class RetrievalSettingsDto {
  @ApiPropertyOptional({ minimum: 0.0001, maximum: 1000, example: 2.0 })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0.0001)
  @Max(1000)
  maxL2Distance?: number;

  @ApiPropertyOptional({
    minimum: 0,
    maximum: 1,
    example: 0.75,
    description: 'Calibrated relevance at or above it: HIGHLY_RELEVANT (PRECISE with an exact hit).',
  })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(1)
  highlyRelevantThreshold?: number;

  @ApiPropertyOptional({ minimum: 0, maximum: 1, example: 0.5, description: 'Calibrated relevance below it: INSUFFICIENT.' })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(1)
  referenceThreshold?: number;

  @ApiPropertyOptional({ minimum: 0, maximum: 10, example: 1, description: 'Weight of the BM25 ranking in reciprocal rank fusion.' })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(10)
  lexicalWeight?: number;

  @ApiPropertyOptional({ minimum: 0, maximum: 10, example: 1, description: 'Weight of the vector ranking in reciprocal rank fusion.' })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(10)
  vectorWeight?: number;

  @ApiPropertyOptional({ minimum: 0, maximum: 10, example: 0.5, description: 'Weight of exact title/keyword (L0) hits in reciprocal rank fusion.' })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(10)
  exactWeight?: number;

  @ApiPropertyOptional({ minimum: 0, maximum: 1000, example: 60, description: "Reciprocal rank fusion's rank offset k." })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(1000)
  rrfK?: number;

  @ApiPropertyOptional({ minimum: 60, maximum: 2592000, example: 86400 })
  @IsOptional()
  @IsInt()
  @Min(60)
  @Max(2_592_000)
  memoryTtlSeconds?: number;

  @ApiPropertyOptional({ minimum: 64, maximum: 8192, example: 512 })
  @IsOptional()
  @IsInt()
  @Min(64)
  @Max(8192)
  chunkSize?: number;

  @ApiPropertyOptional({ minimum: 0, maximum: 4096, example: 64 })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(4096)
  chunkOverlap?: number;

  @ApiPropertyOptional({
    ...METADATA_FILTER_SCHEMA,
    description:
      "The chat's default metadata filter of its lookups (same form as the lookup's `filter`; a chat request's own `filter` replaces it); {} clears it.",
  })
  @IsOptional()
  defaultFilter?: Record<string, unknown>;
}

/** Pages a label may name, and the depth of a labelled heading path. */
export const MAX_LABEL_PAGES = 100;
export const MAX_LABEL_SECTION_DEPTH = 20;

export class LabelledQueryDto {
  @ApiProperty({ example: '示教器屏幕不亮了', maxLength: 4000 })
  @IsString()
  @NotBlank({ message: 'query must not be blank' })
  @MaxLength(4000)
  query: string;

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'pendant/tp10-black-screen.md',
    description: 'The document that answers it, or null when the knowledge base has no answer.',
  })
  @IsOptional()
  @IsString()
  @NotBlank({ message: 'filePath must not be blank' })
  @MaxLength(1000)
  filePath: string | null;

  @ApiPropertyOptional({
    type: [Number],
    example: [48, 49],
    maxItems: MAX_LABEL_PAGES,
    description:
      'For a document made from a file: the pages (1-based) that answer it, any of them — a result is right when its page range meets one. A document with sections must be labelled with pages or a section (docs/retrieval.md "Fitting the grade").',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_LABEL_PAGES)
  @IsInt({ each: true, message: 'pages must be whole page numbers' })
  @Min(1, { each: true, message: 'pages are 1-based' })
  pages?: number[];

  @ApiPropertyOptional({
    type: [String],
    example: ['Chapter 1 GNU/Linux tutorials', '1.4 The basic Unix-like work environment'],
    maxItems: MAX_LABEL_SECTION_DEPTH,
    description:
      "For a document made from a file: the heading path of the section that answers it, outermost first; a result is right when its section's path starts with it.",
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_LABEL_SECTION_DEPTH)
  @IsString({ each: true })
  @NotBlank({ each: true, message: 'section headings must not be blank' })
  @MaxLength(500, { each: true })
  section?: string[];
}

export class GradeTargetsDto {
  @ApiPropertyOptional({ minimum: 0, maximum: 1, default: 0.15, description: 'Largest share of right top results that may be graded INSUFFICIENT.' })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(1)
  maxRightInsufficient?: number;

  @ApiPropertyOptional({
    minimum: 0,
    maximum: 1,
    default: 0.1,
    description: 'Largest share of wrong top results that may be graded PRECISE or HIGHLY_RELEVANT.',
  })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(1)
  maxWrongAnswered?: number;
}

export class FitGradingDto {
  @ApiProperty({
    type: [LabelledQueryDto],
    description: `Labelled questions: at least ${20} in all, ${10} with a filePath and ${5} without (no answer in the knowledge base); at most 5000.`,
  })
  @IsArray()
  @ArrayMaxSize(5000)
  @ValidateNested({ each: true })
  @Type(() => LabelledQueryDto)
  pairs: LabelledQueryDto[];

  @ApiPropertyOptional({ type: GradeTargetsDto })
  @IsOptional()
  @ValidateNested()
  @Type(() => GradeTargetsDto)
  targets?: GradeTargetsDto;

  @ApiPropertyOptional({ default: false, description: 'Only report what the fit would change; store nothing.' })
  @IsOptional()
  @IsBoolean()
  dryRun?: boolean;
}
