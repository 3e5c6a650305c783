import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import { ApiCreatedResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Auth, type RequestWithPrincipal } from './auth.decorator.js';
import {
  ApiKeyDto,
  ApiKeyIdParamDto,
  ApiKeyScopeQueryDto,
  CreateApiKeyDto,
  CurrentCallerDto,
  DEFAULT_GRACE_PERIOD_SECONDS,
  IssuedApiKeyDto,
  RotateApiKeyDto,
} from './dto/api-key.dto.js';
import { toApiKeyDto } from './api-key.view.js';
import { TenancyErrorCode, TenancyException } from './tenancy.exception.js';
import { scopeOf } from './tenant-scope.js';
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
    const tenantId = scopeOf(request, query.tenantId);
    const expiresAt = body.expiresAt === undefined ? undefined : new Date(body.expiresAt);
    if (expiresAt && expiresAt.getTime() <= Date.now()) throw new TenancyException(TenancyErrorCode.InvalidKeyRequest, 'expiresAt must be in the future');
    const issued = await this.tenancy.createKey(tenantId, { name: body.name, role: body.role, expiresAt, allowedOrigins: body.allowedOrigins });
    return { ...toApiKeyDto(issued.record), key: issued.key };
  }

  @Get()
  @ApiOperation({ summary: "The tenant's keys, revoked ones included, newest first (never their secrets)" })
  @ApiOkResponse({ type: ApiKeyDto, isArray: true })
  async list(@Req() request: RequestWithPrincipal, @Query() query: ApiKeyScopeQueryDto): Promise<ApiKeyDto[]> {
    const keys = await this.tenancy.listKeys(scopeOf(request, query.tenantId));
    return keys.map((k) => toApiKeyDto(k));
  }

  @Get('current')
  // Any tenant for the platform admin: it has no key, and needs no tenant to say who it is.
  @Auth('operator', { platformAdmin: 'any-tenant' })
  @ApiOperation({ summary: 'Who is calling: the key’s id, name, role and tenant (operator and viewer keys; the platform admin gets role admin)' })
  @ApiOkResponse({ type: CurrentCallerDto })
  current(@Req() request: RequestWithPrincipal, @Query() query: ApiKeyScopeQueryDto): CurrentCallerDto {
    const principal = request.principal;
    if (!principal) throw new Error('GET /admin/api-keys/current reached without a principal');
    if (principal.kind === 'admin') return { id: null, name: null, role: 'admin', tenantId: principal.tenantId ?? null };
    // A key names its own tenant only: scopeOf refuses a ?tenantId= of another (400), as every key route does.
    const tenantId = scopeOf(request, query.tenantId);
    if (!principal.keyId || !principal.keyName || !principal.role) throw new Error('an API key principal without its key');
    return { id: principal.keyId, name: principal.keyName, role: principal.role, tenantId };
  }

  @Delete(':id')
  @ApiOperation({ summary: 'Revoke a key: refused at once on this replica and within a second on every other (idempotent)' })
  @ApiOkResponse({ type: ApiKeyDto })
  @ApiNotFoundResponse({ description: 'No such key in this tenant' })
  async revoke(@Req() request: RequestWithPrincipal, @Query() query: ApiKeyScopeQueryDto, @Param() params: ApiKeyIdParamDto): Promise<ApiKeyDto> {
    return toApiKeyDto(await this.tenancy.revokeKey(scopeOf(request, query.tenantId), params.id));
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
    const issued = await this.tenancy.rotateKey(scopeOf(request, query.tenantId), params.id, body.gracePeriodSeconds ?? DEFAULT_GRACE_PERIOD_SECONDS);
    return { ...toApiKeyDto(issued.record), key: issued.key };
  }
}
