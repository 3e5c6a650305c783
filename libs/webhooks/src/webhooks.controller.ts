import { Body, Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Patch, Post, Query } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiTags,
} from '@nestjs/swagger';
import type { TenantId } from '@arbiter/common';
import { Auth, CurrentTenant } from '@arbiter/tenancy';
import {
  CreateWebhookDto,
  ListDeliveriesQueryDto,
  RotateWebhookSecretDto,
  toDeliveryDto,
  toWebhookDto,
  UpdateWebhookDto,
  WebhookDeliveryDto,
  WebhookDeliveryListDto,
  WebhookDto,
  WebhookListDto,
  WebhookWithSecretDto,
} from './dto/webhook.dto.js';
import { WebhooksService } from './webhooks.service.js';

@ApiTags('webhooks')
@Controller('admin/webhooks')
@Auth('operator')
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Post()
  @ApiCreatedResponse({ type: WebhookWithSecretDto, description: 'The subscription and its signing secret (shown only here and on rotate)' })
  @ApiBadRequestResponse({ description: 'URL not https, too long, or resolving to a private/loopback/link-local address; unknown event' })
  async create(@CurrentTenant() tenantId: TenantId, @Body() dto: CreateWebhookDto): Promise<WebhookWithSecretDto> {
    const created = await this.webhooks.create(tenantId, dto);
    return { ...toWebhookDto(created), secret: created.secret };
  }

  @Get()
  @ApiOkResponse({ type: WebhookListDto, description: "This tenant's webhooks, newest first (secrets are never listed)" })
  async list(@CurrentTenant() tenantId: TenantId): Promise<WebhookListDto> {
    return { items: (await this.webhooks.list(tenantId)).map(toWebhookDto) };
  }

  @Get(':id')
  @ApiOkResponse({ type: WebhookDto })
  @ApiNotFoundResponse({ description: 'No such webhook in this tenant' })
  async get(@CurrentTenant() tenantId: TenantId, @Param('id', new ParseUUIDPipe()) id: string): Promise<WebhookDto> {
    return toWebhookDto(await this.webhooks.get(tenantId, id));
  }

  @Patch(':id')
  @ApiOkResponse({ type: WebhookDto })
  @ApiNotFoundResponse({ description: 'No such webhook in this tenant' })
  async update(@CurrentTenant() tenantId: TenantId, @Param('id', new ParseUUIDPipe()) id: string, @Body() dto: UpdateWebhookDto): Promise<WebhookDto> {
    return toWebhookDto(await this.webhooks.update(tenantId, id, dto));
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Deleted with its delivery log' })
  @ApiNotFoundResponse({ description: 'No such webhook in this tenant' })
  async remove(@CurrentTenant() tenantId: TenantId, @Param('id', new ParseUUIDPipe()) id: string): Promise<void> {
    await this.webhooks.remove(tenantId, id);
  }

  @Post(':id/rotate')
  @HttpCode(200)
  @ApiOkResponse({ type: WebhookWithSecretDto, description: 'The new secret (shown only here); the previous one also signs until previousSecretExpiresAt' })
  @ApiNotFoundResponse({ description: 'No such webhook in this tenant' })
  async rotate(
    @CurrentTenant() tenantId: TenantId,
    @Param('id', new ParseUUIDPipe()) id: string,
    @Body() dto: RotateWebhookSecretDto,
  ): Promise<WebhookWithSecretDto> {
    const rotated = await this.webhooks.rotate(tenantId, id, dto.overlapSeconds);
    return { ...toWebhookDto(rotated), secret: rotated.secret };
  }

  @Get(':id/deliveries')
  @ApiOkResponse({ type: WebhookDeliveryListDto, description: 'The delivery log, newest first' })
  @ApiNotFoundResponse({ description: 'No such webhook in this tenant' })
  async deliveries(
    @CurrentTenant() tenantId: TenantId,
    @Param('id', new ParseUUIDPipe()) id: string,
    @Query() query: ListDeliveriesQueryDto,
  ): Promise<WebhookDeliveryListDto> {
    return { items: (await this.webhooks.deliveries(tenantId, id, query.limit)).map(toDeliveryDto) };
  }

  @Post(':id/deliveries/:deliveryId/redeliver')
  @HttpCode(202)
  @ApiAcceptedResponse({ type: WebhookDeliveryDto, description: 'The new delivery of the same event, queued' })
  @ApiNotFoundResponse({ description: 'No such webhook or delivery in this tenant' })
  @ApiConflictResponse({ description: 'The webhook is disabled' })
  async redeliver(
    @CurrentTenant() tenantId: TenantId,
    @Param('id', new ParseUUIDPipe()) id: string,
    @Param('deliveryId', new ParseUUIDPipe()) deliveryId: string,
  ): Promise<WebhookDeliveryDto> {
    return toDeliveryDto(await this.webhooks.redeliver(tenantId, id, deliveryId));
  }
}
