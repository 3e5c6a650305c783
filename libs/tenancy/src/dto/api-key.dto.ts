import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsIn, IsInt, IsISO8601, IsOptional, IsString, IsUUID, Length, Matches, Max, Min, Validate } from 'class-validator';
import { NotBlank } from '@arbiter/common';
import { API_KEY_ROLES, type ApiKeyRole } from '../entities/api-key.entity.js';
import { ExactOrigin, MAX_ALLOWED_ORIGINS } from './exact-origin.js';

/** Seven days: the longest a rotated-out secret keeps authenticating. */
export const MAX_GRACE_PERIOD_SECONDS = 604_800;
export const DEFAULT_GRACE_PERIOD_SECONDS = 86_400;

export class CreateApiKeyDto {
  @ApiProperty({ example: '客服网页组件 widget', description: 'Who or what uses the key: 1–100 characters in any script, stored trimmed and NFKC-normalized' })
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.normalize('NFKC').trim() : value))
  @IsString()
  @Length(1, 100)
  @NotBlank()
  // Control characters would corrupt logs and the console's table.
  @Matches(/^[^\p{Cc}\p{Cf}]*$/u, { message: 'name must not contain control or format characters' })
  name: string;

  @ApiProperty({
    enum: API_KEY_ROLES,
    description: 'client (chat, feedback, lookup, route), operator (the tenant’s /admin), viewer (read-only operator, for the console)',
  })
  @IsIn(API_KEY_ROLES)
  role: ApiKeyRole;

  @ApiPropertyOptional({ example: '2027-06-30T00:00:00Z', description: 'When the key stops authenticating (ISO 8601, in the future); none = never' })
  @IsOptional()
  @IsISO8601({ strict: true })
  expiresAt?: string;

  @ApiPropertyOptional({
    type: [String],
    example: ['https://support.example.com'],
    description: `Origins (exact scheme://host[:port]) a browser may send this key from; a request with another Origin gets 403 ORIGIN_NOT_ALLOWED; empty or absent = any. At most ${MAX_ALLOWED_ORIGINS}.`,
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_ALLOWED_ORIGINS)
  @IsString({ each: true })
  @Validate(ExactOrigin, { each: true })
  allowedOrigins?: string[];
}

export class RotateApiKeyDto {
  @ApiPropertyOptional({
    minimum: 0,
    maximum: MAX_GRACE_PERIOD_SECONDS,
    default: DEFAULT_GRACE_PERIOD_SECONDS,
    description: 'How long the current secret keeps authenticating beside the new one (0: it stops now)',
  })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(MAX_GRACE_PERIOD_SECONDS)
  gracePeriodSeconds?: number;
}

export class ApiKeyScopeQueryDto {
  @ApiPropertyOptional({ format: 'uuid', description: 'The tenant whose keys the platform admin (ADMIN_TOKEN) manages; operators omit it' })
  @IsOptional()
  @IsUUID()
  tenantId?: string;
}

export class ApiKeyIdParamDto {
  @ApiProperty({ format: 'uuid' })
  @IsUUID()
  id: string;
}

export class ApiKeyDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() name: string;
  @ApiProperty({ enum: API_KEY_ROLES }) role: ApiKeyRole;
  @ApiProperty({ description: 'The first characters of the secret, to recognise it', example: 'ak_cli_Xy3d' }) prefix: string;
  @ApiProperty({ enum: ['active', 'expired', 'revoked'] }) status: 'active' | 'expired' | 'revoked';
  @ApiProperty() createdAt: string;
  @ApiProperty({ nullable: true, type: String, description: 'Recorded in batches, about once a minute' }) lastUsedAt: string | null;
  @ApiProperty({ nullable: true, type: String }) expiresAt: string | null;
  @ApiProperty({ nullable: true, type: String }) revokedAt: string | null;
  @ApiProperty({ type: [String] }) allowedOrigins: string[];
  @ApiProperty({ nullable: true, type: String, description: 'Until when the secret before the last rotation still authenticates' })
  previousSecretValidUntil: string | null;
}

export class IssuedApiKeyDto extends ApiKeyDto {
  @ApiProperty({ description: 'The secret: shown only in this answer (stored hashed)' }) key: string;
}

/** Who is calling (`GET /admin/api-keys/current`): the console shows it and hides writes from a viewer. */
export class CurrentCallerDto {
  @ApiProperty({ format: 'uuid', nullable: true, type: String, description: "The key's id; null for the platform admin" }) id: string | null;
  @ApiProperty({ nullable: true, type: String, description: "The key's name; null for the platform admin" }) name: string | null;
  @ApiProperty({ enum: [...API_KEY_ROLES, 'admin'], description: "The key's role, or admin for the platform ADMIN_TOKEN" }) role: ApiKeyRole | 'admin';
  @ApiProperty({ format: 'uuid', nullable: true, type: String, description: "The key's tenant; for the platform admin the ?tenantId= it named, else null" })
  tenantId: string | null;
}
