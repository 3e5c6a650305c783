import { Body, Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Patch, Post, Put, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiCreatedResponse, ApiNoContentResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { TenantId } from '@arbiter/common';
import { Auth, CurrentTenant } from '@arbiter/tenancy';
import { CaseDto, CasePageDto, CreateCaseDto, ListCasesQueryDto, UpdateCaseDto } from './dto/case.dto.js';
import { CaseLibrarySettingsDto, PutCaseLibrarySettingsDto } from './dto/case-library-settings.dto.js';
import { CaseLibraryService } from './case-library.service.js';

/**
 * The operation id a route had when the feedback lib's `ReviewController` served it, and its summary (none when not
 * given, as before): the OpenAPI document, and the console's types generated from it (`apps/console/src/api/schema.d.ts`),
 * did not change when the routes moved here.
 */
function Operation(method: string, summary?: string): MethodDecorator {
  return ApiOperation({ operationId: `ReviewController_${method}`, summary });
}

/**
 * The operator's case library: `/admin/case-library[/settings|/:id]`: cases (list, create, edit, retract) and the answer threshold. */
@ApiTags('feedback')
@Controller('admin/case-library')
@Auth('operator')
export class CaseLibraryController {
  constructor(private readonly cases: CaseLibraryService) {}

  @Get('settings')
  @Operation('settings', 'The case-library answer threshold of the tenant (default 0.85) and the version of its answerable cases')
  @ApiOkResponse({ type: CaseLibrarySettingsDto })
  settings(@CurrentTenant() tenantId: TenantId): Promise<CaseLibrarySettingsDto> {
    return this.cases.settings(tenantId);
  }

  @Put('settings')
  @Operation('setSettings', 'Set the case-library answer threshold, in (0, 1] (null = the default); applies to the next chat message')
  @ApiOkResponse({ type: CaseLibrarySettingsDto })
  @ApiBadRequestResponse({ description: 'threshold missing, not a number, or outside (0, 1]' })
  setSettings(@CurrentTenant() tenantId: TenantId, @Body() body: PutCaseLibrarySettingsDto): Promise<CaseLibrarySettingsDto> {
    return this.cases.setThreshold(tenantId, body.threshold);
  }

  @Get()
  @Operation('listCases')
  @ApiOkResponse({ type: CasePageDto, description: 'Active cases, newest first (cursor pagination), filterable by faultCategory/sourceType' })
  listCases(@CurrentTenant() tenantId: TenantId, @Query() query: ListCasesQueryDto): Promise<CasePageDto> {
    return this.cases.listCases(tenantId, { faultCategory: query.faultCategory, sourceType: query.sourceType }, query);
  }

  @Post()
  @HttpCode(201)
  @Operation('createCase')
  @ApiCreatedResponse({ type: CaseDto, description: 'A MANUAL case' })
  createCase(@CurrentTenant() tenantId: TenantId, @Body() body: CreateCaseDto): Promise<CaseDto> {
    return this.cases.createManualCase(tenantId, body);
  }

  @Get(':id')
  @Operation('getCase')
  @ApiOkResponse({ type: CaseDto })
  @ApiNotFoundResponse({ description: 'No such active case in this tenant' })
  getCase(@CurrentTenant() tenantId: TenantId, @Param('id', new ParseUUIDPipe()) id: string): Promise<CaseDto> {
    return this.cases.getCase(tenantId, id);
  }

  @Patch(':id')
  @Operation('updateCase')
  @ApiOkResponse({
    type: CaseDto,
    description:
      'Edits query, answer, faultCategory and/or errorCode (null clears errorCode); a new query or answer is what the chat answers with from the next message',
  })
  @ApiNotFoundResponse({ description: 'No such active case in this tenant' })
  updateCase(@CurrentTenant() tenantId: TenantId, @Param('id', new ParseUUIDPipe()) id: string, @Body() body: UpdateCaseDto): Promise<CaseDto> {
    return this.cases.updateCase(tenantId, id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @Operation('retractCase', 'Retract a case (AUTO or MANUAL): no longer listed, and no longer answers chat messages from the next one')
  @ApiNoContentResponse({ description: 'Retracted' })
  @ApiNotFoundResponse({ description: 'No such active case in this tenant' })
  async retractCase(@CurrentTenant() tenantId: TenantId, @Param('id', new ParseUUIDPipe()) id: string): Promise<void> {
    await this.cases.retractCase(tenantId, id);
  }
}
