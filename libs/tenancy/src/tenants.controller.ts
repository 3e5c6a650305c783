import { Body, Controller, Get, HttpCode, Post } from '@nestjs/common';
import { ApiConflictResponse, ApiCreatedResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { Auth } from './auth.decorator.js';
import { CreatedTenantDto, CreateTenantDto, TenantDto } from './dto/tenant.dto.js';
import { TenancyService } from './tenancy.service.js';

@ApiTags('platform admin')
@Controller('admin/tenants')
@Auth('admin')
export class TenantsController {
  constructor(private readonly tenancy: TenancyService) {}

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
}
