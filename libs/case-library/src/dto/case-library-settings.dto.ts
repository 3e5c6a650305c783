import { ApiProperty } from '@nestjs/swagger';
import { IsNumber, ValidateIf } from 'class-validator';

export class CaseLibrarySettingsDto {
  @ApiProperty({
    minimum: 0,
    exclusiveMinimum: true,
    maximum: 1,
    example: 0.85,
    description:
      'A verified case answers a chat message when their similarity (character n-gram TF-IDF cosine) is at least this; in (0, 1] (1 = the same question up to case, width, spacing and punctuation)',
  })
  threshold: number;
  @ApiProperty({ description: 'True when the tenant has not set one (the built-in default applies)' }) isDefault: boolean;
  @ApiProperty({ description: "Version of the tenant's answerable cases and settings (moves on every change that can change an answer)" }) version: string;
}

export class PutCaseLibrarySettingsDto {
  @ApiProperty({
    type: Number,
    nullable: true,
    minimum: 0,
    exclusiveMinimum: true,
    maximum: 1,
    example: 0.9,
    description: 'In (0, 1]; null = back to the default',
  })
  @ValidateIf((_o, v) => v !== null)
  @IsNumber({ allowNaN: false, allowInfinity: false })
  threshold: number | null;
}
