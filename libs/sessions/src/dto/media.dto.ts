import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsUrl, MaxLength } from 'class-validator';
import { MEDIA_TYPES, type MediaType } from '../session.types.js';

export class MediaDto {
  @ApiProperty({ enum: MEDIA_TYPES })
  @IsIn(MEDIA_TYPES)
  type: MediaType;

  @ApiPropertyOptional({ example: 'https://cdn.example.com/u/123.png' })
  @IsOptional()
  @IsUrl({ require_protocol: true, require_tld: false })
  @MaxLength(2000)
  url?: string;
}
