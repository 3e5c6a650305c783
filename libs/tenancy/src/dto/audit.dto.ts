import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsISO8601, IsOptional, IsUUID, Matches, Max, MaxLength, Min } from 'class-validator';
import { PageQueryDto } from '@arbiter/common';
import type { AuditEntry } from '../audit/audit.types.js';
import type { Serialized } from '@arbiter/common';

export class AuditQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ format: 'uuid', description: 'The platform admin: one tenant (omit for every tenant); operators omit it' })
  @IsOptional()
  @IsUUID()
  tenantId?: string;

  @ApiPropertyOptional({ description: 'Entries at or after this time (ISO 8601)' }) @IsOptional() @IsISO8601({ strict: true }) from?: string;
  @ApiPropertyOptional({ description: 'Entries before this time (ISO 8601)' }) @IsOptional() @IsISO8601({ strict: true }) to?: string;

  @ApiPropertyOptional({ example: 'api_key', description: 'snake_case resource type' })
  @IsOptional()
  @Matches(/^[a-z][a-z0-9_]{0,39}$/, { message: 'resourceType must be snake_case' })
  resourceType?: string;

  @ApiPropertyOptional({ example: 'revoke' }) @IsOptional() @Matches(/^[a-z][a-z0-9_]{0,39}$/, { message: 'action must be snake_case' }) action?: string;

  @ApiPropertyOptional({ format: 'uuid', description: 'Entries written with this key' }) @IsOptional() @IsUUID() actorKeyId?: string;
}

export class AuditExportQueryDto extends AuditQueryDto {
  @ApiPropertyOptional({ enum: ['csv'], default: 'csv' }) @IsOptional() @IsIn(['csv']) format?: 'csv';
}

export class AuditActorDto {
  @ApiProperty({ enum: ['api_key', 'platform_admin', 'system'] }) kind: 'api_key' | 'platform_admin' | 'system';
  @ApiPropertyOptional({ format: 'uuid' }) keyId?: string;
  @ApiPropertyOptional({ description: "The key's name" }) name?: string;
}

export class AuditEntryDto implements Serialized<AuditEntry> {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid' }) tenantId: string;
  @ApiProperty() occurredAt: string;
  @ApiProperty({ type: AuditActorDto }) actor: AuditActorDto;
  @ApiProperty({ example: 'create' }) action: string;
  @ApiProperty({ example: 'api_key' }) resourceType: string;
  @ApiProperty({ nullable: true, type: String }) resourceId: string | null;
  @ApiProperty({ nullable: true, type: String, description: 'The intent, the file path, the key name' }) label: string | null;
  @ApiProperty({ nullable: true, type: String }) requestId: string | null;
  @ApiProperty({ type: 'object', additionalProperties: true, description: 'before/after for settings, counts for bulk work; never a secret' })
  summary: Record<string, unknown>;
}

export class AuditPageDto {
  @ApiProperty({ type: AuditEntryDto, isArray: true }) items: AuditEntryDto[];
  @ApiProperty({ nullable: true, type: String }) nextCursor: string | null;
}

export class AuditSettingsDto {
  @ApiProperty({ minimum: 1, maximum: 3650, description: 'Days entries are kept' })
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(3650)
  retentionDays: number;
}

export class AuditScopeQueryDto {
  @ApiPropertyOptional({ format: 'uuid', description: 'The tenant the platform admin acts for; operators omit it' })
  @IsOptional()
  @IsUUID()
  @MaxLength(36)
  tenantId?: string;
}
