import { ApiProperty } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsString, Length, Matches } from 'class-validator';
import type { Tenant } from '../tenancy.repository.js';
import type { Serialized } from '@arbiter/common';

export class CreateTenantDto {
  @ApiProperty({
    example: 'acme-robotics',
    description: 'Tenant name (letters, digits, - _ . and spaces), stored trimmed and NFKC-normalized; unique case-insensitively',
  })
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.normalize('NFKC').trim() : value))
  @IsString()
  @Length(1, 100)
  @Matches(/^[\p{L}\p{N} _.-]+$/u, { message: 'name may contain letters, digits, spaces, "-", "_" and "."' })
  name: string;
}

export class TenantApiKeysDto {
  @ApiProperty({ description: 'Key for the web client and bots (chat, feedback, ingest, lookup, route). Shown once.' })
  client: string;

  @ApiProperty({ description: 'Key for operators (everything under /admin of this tenant, plus client endpoints). Shown once.' })
  operator: string;
}

export class CreatedTenantDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() name: string;
  @ApiProperty({ type: TenantApiKeysDto }) apiKeys: TenantApiKeysDto;
}

export class TenantDto implements Serialized<Tenant> {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() name: string;
  @ApiProperty({ example: 'UTC' }) timeZone: string;
  @ApiProperty() createdAt: string;
}
