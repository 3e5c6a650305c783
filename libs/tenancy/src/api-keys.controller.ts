import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import { ApiCreatedResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { asTenantId, type TenantId } from '@arbiter/common';
import { Auth, type RequestWithPrincipal } from './auth.decorator.js';
import {
  ApiKeyDto,
  ApiKeyIdParamDto,
  ApiKeyScopeQueryDto,
  CreateApiKeyDto,
  DEFAULT_GRACE_PERIOD_SECONDS,
  IssuedApiKeyDto,
  RotateApiKeyDto,
} from './dto/api-key.dto.js';
import { toApiKeyDto } from './api-key.view.js';
import { TenancyErrorCode, TenancyException } from './tenancy.exception.js';
import { TenancyService } from './tenancy.service.js';

/**
 * Named API keys of a tenant (docs/http-edge.md "Keys"): its operators manage them, viewers list them,
 * and the platform admin manages any tenant's with `?tenantId=`.
 */
@ApiTags('api keys')
@Controller('admin/api-keys')
@Auth('operator', { platformAdmin: true })
export class ApiKeysController {
  constructor(private readonly tenancy: TenancyService) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Create a named key with a role (client, operator, viewer), optional expiry and allowed origins; the secret is shown only now' })
  @ApiCreatedResponse({ type: IssuedApiKeyDto })
  async create(@Req() request: RequestWithPrincipal, @Query() query: ApiKeyScopeQueryDto, @Body() body: CreateApiKeyDto): Promise<IssuedApiKeyDto> {
    const tenantId = scopeOf(request, query);
    const expiresAt = body.expiresAt === undefined ? undefined : new Date(body.expiresAt);
    if (expiresAt && expiresAt.getTime() <= Date.now()) throw new TenancyException(TenancyErrorCode.InvalidKeyRequest, 'expiresAt must be in the future');
    const issued = await this.tenancy.createKey(tenantId, { name: body.name, role: body.role, expiresAt, allowedOrigins: body.allowedOrigins });
    return { ...toApiKeyDto(issued.record), key: issued.key };
  }

  @Get()
  @ApiOperation({ summary: "The tenant's keys, revoked ones included, newest first (never their secrets)" })
  @ApiOkResponse({ type: ApiKeyDto, isArray: true })
  async list(@Req() request: RequestWithPrincipal, @Query() query: ApiKeyScopeQueryDto): Promise<ApiKeyDto[]> {
    const keys = await this.tenancy.listKeys(scopeOf(request, query));
    return keys.map((k) => toApiKeyDto(k));
  }

  @Delete(':id')
  @ApiOperation({ summary: 'Revoke a key: refused at once on this replica and within a second on every other (idempotent)' })
  @ApiOkResponse({ type: ApiKeyDto })
  @ApiNotFoundResponse({ description: 'No such key in this tenant' })
  async revoke(@Req() request: RequestWithPrincipal, @Query() query: ApiKeyScopeQueryDto, @Param() params: ApiKeyIdParamDto): Promise<ApiKeyDto> {
    return toApiKeyDto(await this.tenancy.revokeKey(scopeOf(request, query), params.id));
  }

  @Post(':id/rotate')
  @HttpCode(200)
  @ApiOperation({ summary: 'A new secret for the key; the current one keeps authenticating for gracePeriodSeconds (default 86400, 0–604800)' })
  @ApiOkResponse({ type: IssuedApiKeyDto })
  @ApiNotFoundResponse({ description: 'No such key in this tenant' })
  async rotate(
    @Req() request: RequestWithPrincipal,
    @Query() query: ApiKeyScopeQueryDto,
    @Param() params: ApiKeyIdParamDto,
    @Body() body: RotateApiKeyDto = {},
  ): Promise<IssuedApiKeyDto> {
    const issued = await this.tenancy.rotateKey(scopeOf(request, query), params.id, body.gracePeriodSeconds ?? DEFAULT_GRACE_PERIOD_SECONDS);
    return { ...toApiKeyDto(issued.record), key: issued.key };
  }
}

/** The tenant a call acts on: the key's own, or the one the platform admin names (`?tenantId=`). */
function scopeOf(request: RequestWithPrincipal, query: ApiKeyScopeQueryDto): TenantId {
  const principal = request.principal;
  if (!principal?.tenantId) throw new TenancyException(TenancyErrorCode.TenantIdRequired, 'the platform admin names the tenant: ?tenantId=<uuid>');
  if (principal.kind === 'api-key' && query.tenantId !== undefined && query.tenantId.toLowerCase() !== principal.tenantId)
    throw new TenancyException(TenancyErrorCode.InvalidKeyRequest, 'tenantId: only the platform admin names a tenant; a key manages its own');
  return asTenantId(principal.tenantId);
}
