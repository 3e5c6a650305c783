import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { PAGE_LIMITS } from './cursor.js';

/**
 * `limit` + `cursor` of every keyset-paginated list (one definition, so every list validates and
 * documents them alike). List queries with filters extend it; `pageRequest(query)` decodes it.
 */
export class PageQueryDto {
  @ApiPropertyOptional({ minimum: 1, maximum: PAGE_LIMITS.max, default: PAGE_LIMITS.default, description: 'Page size' })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(PAGE_LIMITS.max)
  limit?: number;

  @ApiPropertyOptional({ description: '`nextCursor` of the previous page (opaque)', maxLength: PAGE_LIMITS.cursorLength })
  @IsOptional()
  @IsString()
  @MaxLength(PAGE_LIMITS.cursorLength)
  cursor?: string;
}
