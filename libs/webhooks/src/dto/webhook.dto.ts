import { ApiProperty, ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, ArrayUnique, IsArray, IsBoolean, IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { MAX_WEBHOOK_URL_LENGTH } from '../webhook-url.js';
import { DELIVERY_STATUSES, WEBHOOK_EVENT_TYPES, type WebhookDelivery, type WebhookEventType, type WebhookSubscription } from '../webhook.types.js';
import type { Serialized } from '@arbiter/common';

/** The validated fields of a subscription; the create and PATCH bodies add only documentation (PATCH: any subset). */
class WebhookFieldsDto {
  @ApiProperty({ maxLength: MAX_WEBHOOK_URL_LENGTH })
  @IsString()
  @MaxLength(MAX_WEBHOOK_URL_LENGTH, { message: `url is longer than ${MAX_WEBHOOK_URL_LENGTH} characters` })
  url: string;

  @ApiProperty({ enum: WEBHOOK_EVENT_TYPES, isArray: true })
  @IsArray()
  @ArrayMinSize(1, { message: 'events must list at least one event' })
  @ArrayMaxSize(WEBHOOK_EVENT_TYPES.length)
  @ArrayUnique({ message: 'events must not repeat an event' })
  @IsIn(WEBHOOK_EVENT_TYPES, { each: true, message: `events must be among ${WEBHOOK_EVENT_TYPES.join(', ')}` })
  events: WebhookEventType[];

  @ApiPropertyOptional({ maxLength: 200 })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  description?: string;
}

export class CreateWebhookDto extends WebhookFieldsDto {
  @ApiProperty({ type: String, example: 'https://desk.example.com/hooks/arbiter' })
  declare url: string;
}

/** `PATCH /admin/webhooks/:id`: any subset of the fields (a mapped type), and `enabled`. */
export class UpdateWebhookDto extends PartialType(WebhookFieldsDto) {
  @ApiPropertyOptional({ type: String, nullable: true })
  declare description?: string;

  @ApiPropertyOptional({
    description: 'false pauses deliveries; true re-enables a subscription (also one disabled after failures) and resets its failure count',
  })
  @IsOptional()
  @IsBoolean()
  enabled?: boolean;
}

export class RotateWebhookSecretDto {
  @ApiPropertyOptional({
    description: 'How long the previous secret keeps signing (X-Arbiter-Signature-Previous); 0 ends it at once',
    default: 86400,
    maximum: 604800,
  })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(604_800)
  overlapSeconds?: number;
}

export class ListDeliveriesQueryDto {
  @ApiPropertyOptional({ default: 50, minimum: 1, maximum: 200 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(200)
  limit?: number;
}

export class WebhookDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() url: string;
  @ApiProperty({ enum: WEBHOOK_EVENT_TYPES, isArray: true }) events: string[];
  @ApiProperty({ type: String, nullable: true }) description: string | null;
  @ApiProperty() enabled: boolean;
  @ApiProperty({ type: String, nullable: true, description: 'Why it was disabled (after repeated failures, or by an operator)' }) disabledReason: string | null;
  @ApiProperty({ description: 'Failed attempts in a row' }) consecutiveFailures: number;
  @ApiProperty({ type: String, nullable: true, description: 'Until when the previous secret also signs (rotation overlap)' }) previousSecretExpiresAt:
    string | null;
  @ApiProperty() createdAt: string;
  @ApiProperty() updatedAt: string;
}

export class WebhookWithSecretDto extends WebhookDto {
  @ApiProperty({ description: 'The signing secret (HMAC-SHA256 key as UTF-8). Shown only in this response.' }) secret: string;
}

export class WebhookListDto {
  @ApiProperty({ type: [WebhookDto] }) items: WebhookDto[];
}

export class WebhookDeliveryDto implements Serialized<WebhookDelivery> {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid' }) subscriptionId: string;
  @ApiProperty({ format: 'uuid' }) eventId: string;
  @ApiProperty({ enum: WEBHOOK_EVENT_TYPES }) eventType: Serialized<WebhookDelivery>['eventType'];
  @ApiProperty({ type: String, nullable: true, format: 'uuid' }) redeliveryOf: string | null;
  @ApiProperty({ enum: DELIVERY_STATUSES }) status: Serialized<WebhookDelivery>['status'];
  @ApiProperty() attempts: number;
  @ApiProperty({ type: String, nullable: true }) nextAttemptAt: string | null;
  @ApiProperty({ type: String, nullable: true }) lastAttemptAt: string | null;
  @ApiProperty({ type: Number, nullable: true }) responseStatus: number | null;
  @ApiProperty({ type: Number, nullable: true }) responseMs: number | null;
  @ApiProperty({ type: String, nullable: true }) error: string | null;
  @ApiProperty() createdAt: string;
  @ApiProperty({ type: String, nullable: true }) finishedAt: string | null;
}

export class WebhookDeliveryListDto {
  @ApiProperty({ type: [WebhookDeliveryDto] }) items: WebhookDeliveryDto[];
}

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

export function toWebhookDto(s: WebhookSubscription): WebhookDto {
  return {
    id: s.id,
    url: s.url,
    events: s.events,
    description: s.description,
    enabled: s.enabled,
    disabledReason: s.disabledReason,
    consecutiveFailures: s.consecutiveFailures,
    previousSecretExpiresAt: iso(s.previousSecretExpiresAt),
    createdAt: s.createdAt.toISOString(),
    updatedAt: s.updatedAt.toISOString(),
  };
}

export function toDeliveryDto(d: WebhookDelivery): WebhookDeliveryDto {
  return {
    id: d.id,
    subscriptionId: d.subscriptionId,
    eventId: d.eventId,
    eventType: d.eventType,
    redeliveryOf: d.redeliveryOf,
    status: d.status,
    attempts: d.attempts,
    nextAttemptAt: iso(d.nextAttemptAt),
    lastAttemptAt: iso(d.lastAttemptAt),
    responseStatus: d.responseStatus,
    responseMs: d.responseMs,
    error: d.error,
    createdAt: d.createdAt.toISOString(),
    finishedAt: iso(d.finishedAt),
  };
}
