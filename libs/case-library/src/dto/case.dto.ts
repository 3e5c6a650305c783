import { ApiProperty, ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { NotBlank, PageQueryDto } from '@arbiter/common';
import { CASE_SOURCE_TYPES, FAULT_CATEGORIES, type CaseSourceType, type FaultCategory } from '../case-library.types.js';

const MAX_TEXT_LENGTH = 20_000;

export class ListCasesQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: FAULT_CATEGORIES })
  @IsOptional()
  @IsIn(FAULT_CATEGORIES)
  faultCategory?: FaultCategory;

  @ApiPropertyOptional({ enum: CASE_SOURCE_TYPES })
  @IsOptional()
  @IsIn(CASE_SOURCE_TYPES)
  sourceType?: CaseSourceType;
}

export class CaseDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid', nullable: true, type: String }) sessionId: string | null;
  @ApiProperty() query: string;
  @ApiProperty() answer: string;
  @ApiProperty({ enum: FAULT_CATEGORIES }) faultCategory: string;
  @ApiProperty({ nullable: true, type: String }) errorCode: string | null;
  @ApiProperty({ enum: CASE_SOURCE_TYPES }) sourceType: string;
  @ApiProperty() createdAt: string;
  @ApiProperty() updatedAt: string;
}

export class CasePageDto {
  @ApiProperty({ type: [CaseDto] }) items: CaseDto[];
  @ApiProperty({ nullable: true, type: String }) nextCursor: string | null;
}

const ERROR_CODE = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$/;

const ERROR_CODE_MESSAGE = 'errorCode must be 1-64 letters, digits, "_", ".", ":" or "-" (e.g. E102)';

/** The validated fields of a case; the create and PATCH bodies add only documentation (PATCH: any subset). */
class CaseFieldsDto {
  @ApiProperty({ maxLength: MAX_TEXT_LENGTH })
  @IsString()
  @NotBlank()
  @MaxLength(MAX_TEXT_LENGTH)
  query: string;

  @ApiProperty({ maxLength: MAX_TEXT_LENGTH })
  @IsString()
  @NotBlank()
  @MaxLength(MAX_TEXT_LENGTH)
  answer: string;

  @ApiPropertyOptional({ enum: FAULT_CATEGORIES })
  @IsOptional()
  @IsIn(FAULT_CATEGORIES)
  faultCategory?: FaultCategory;

  @ApiPropertyOptional({ example: 'E102', nullable: true, type: String })
  @IsOptional()
  @IsString()
  @Matches(ERROR_CODE, { message: ERROR_CODE_MESSAGE })
  errorCode?: string | null;
}

export class CreateCaseDto extends CaseFieldsDto {
  @ApiPropertyOptional({ type: String, default: 'GENERAL' })
  declare faultCategory?: FaultCategory;
}

/** `PATCH /admin/case-library/:id`: any subset of the case's fields (a mapped type). */
export class UpdateCaseDto extends PartialType(CaseFieldsDto) {
  @ApiPropertyOptional({ type: String, description: 'The question (what chat messages are matched against)' })
  declare query?: string;

  @ApiPropertyOptional({ type: String, description: 'The answer the chat gives when the case matches' })
  declare answer?: string;

  @ApiPropertyOptional({ type: String, description: 'null clears it' })
  declare errorCode?: string | null;
}
