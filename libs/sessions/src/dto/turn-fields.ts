import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsOptional, IsString, IsUUID, Matches, MaxLength, ValidateNested } from 'class-validator';
import { MediaDto } from './media.dto.js';

/**
 * The fields every turn-carrying request shares (session ingest, chat): one definition, so the two
 * endpoints validate and document them identically.
 */
export function ConversationIdField(description: string): PropertyDecorator {
  return applyDecorators(ApiPropertyOptional({ format: 'uuid', description }), IsOptional(), IsUUID());
}

/** What a channel name may be, when a turn is stored and when one is filtered on. */
const CHANNEL_NAME = () => Matches(/^[a-z0-9_-]{1,32}$/i, { message: 'channel must be 1-32 letters, digits, "_" or "-"' });

export function ChannelField(): PropertyDecorator {
  return applyDecorators(ApiPropertyOptional({ default: 'web', example: 'web' }), IsOptional(), IsString(), CHANNEL_NAME());
}

/** An optional channel filter of a read endpoint: validated as the channel a turn is stored with. */
export function ChannelFilterField(description: string): PropertyDecorator {
  return applyDecorators(ApiPropertyOptional({ description, example: 'web' }), IsOptional(), IsString(), CHANNEL_NAME());
}

export function UserRefField(): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ description: 'Your reference for the end user (never shown to other tenants)', maxLength: 200 }),
    IsOptional(),
    IsString(),
    MaxLength(200),
  );
}

export function MediaListField(): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ type: [MediaDto], maxItems: 20 }),
    IsOptional(),
    IsArray(),
    ArrayMaxSize(20),
    ValidateNested({ each: true }),
    Type(() => MediaDto),
  );
}
