import { Body, Controller, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import { ApiConflictResponse, ApiCreatedResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { asTenantId } from '@arbiter/common';
import { Auth } from './auth.decorator.js';
import { CreatedTenantDto, CreateTenantDto, TenantDto } from './dto/tenant.dto.js';
import { EffectiveLimitsDto, TenantIdParamDto, TenantLimitsChangeDto } from './dto/tenant-limits.dto.js';
import { RateLimiter } from './rate-limit/rate-limiter.js';
import { TenancyErrorCode, TenancyException } from './tenancy.exception.js';
import { TenancyService } from './tenancy.service.js';

@ApiTags('platform admin')
@Controller('admin/tenants')
@Auth('admin')
export class TenantsController {
  constructor(
    private readonly tenancy: TenancyService,
    private readonly limiter: RateLimiter,
  ) {}

  @Post()
  @HttpCode(201)
  @ApiCreatedResponse({ type: CreatedTenantDto, description: 'The tenant and its two API keys (shown only now)' })
  @ApiConflictResponse({ description: 'Name already taken' })
  async create(@Body() body: CreateTenantDto): Promise<CreatedTenantDto> {
    const tenant = await this.tenancy.createTenant(body.name);
    return { id: tenant.id, name: tenant.name, apiKeys: tenant.apiKeys };
  }

  @Get()
  @ApiOkResponse({ type: TenantDto, isArray: true })
  async list(): Promise<TenantDto[]> {
    const tenants = await this.tenancy.listTenants();
    return tenants.map((t) => ({ id: t.id, name: t.name, timeZone: t.timeZone, createdAt: t.createdAt.toISOString() }));
  }

  @Get(':id/limits')
  @ApiOperation({ summary: "The tenant's effective rate limits per route class (its overrides over the configured defaults)" })
  @ApiOkResponse({ type: EffectiveLimitsDto })
  @ApiNotFoundResponse({ description: 'No such tenant' })
  async limits(@Param() params: TenantIdParamDto): Promise<EffectiveLimitsDto> {
    if (!(await this.tenancy.getTenant(asTenantId(params.id)))) throw new TenancyException(TenancyErrorCode.TenantNotFound, params.id);
    return this.limiter.effectiveLimits(params.id);
  }

  @Put(':id/limits')
  @ApiOperation({
    summary:
      'Override rate limits of one tenant: any subset of {chat, route, lookup, ingest, admin} × {perMinute, perKeyPerMinute}; null returns to the default',
  })
  @ApiOkResponse({ type: EffectiveLimitsDto, description: 'The effective limits after the change' })
  @ApiNotFoundResponse({ description: 'No such tenant' })
  async setLimits(@Param() params: TenantIdParamDto, @Body() body: TenantLimitsChangeDto): Promise<EffectiveLimitsDto> {
    const limits = await this.limiter.setOverrides(asTenantId(params.id), body);
    if (!limits) throw new TenancyException(TenancyErrorCode.TenantNotFound, params.id);
    return limits;
  }
}
