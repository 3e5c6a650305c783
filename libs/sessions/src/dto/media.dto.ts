import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsOptional, IsUrl, MaxLength } from 'class-validator';
import { MEDIA_TYPES, normalizeMediaType, type MediaType } from '../session.types.js';

export class MediaDto {
  @ApiProperty({ enum: MEDIA_TYPES, description: 'Trimmed and case-folded before validation (" IMAGE " is stored as "image"); other values are rejected' })
  @Transform(({ value }: { value: unknown }) => normalizeMediaType(value))
  @IsIn(MEDIA_TYPES)
  type: MediaType;

  @ApiPropertyOptional({ example: 'https://cdn.example.com/u/123.png' })
  @IsOptional()
  @IsUrl({ require_protocol: true, require_tld: false })
  @MaxLength(2000)
  url?: string;
}
