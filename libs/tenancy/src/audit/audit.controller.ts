import { Body, Controller, Get, Header, Put, Query, Req } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import Papa from 'papaparse';
import { pageRequest, type Page } from '@arbiter/common';
import { AppConfig } from '@arbiter/config';
import { Database } from '@arbiter/database';
import { Auth, type RequestWithPrincipal } from '../auth.decorator.js';
import { AuditEntryDto, AuditExportQueryDto, AuditPageDto, AuditQueryDto, AuditScopeQueryDto, AuditSettingsDto } from '../dto/audit.dto.js';
import { scopeOf } from '../tenant-scope.js';
import { AuditLog } from './audit-log.js';
import { AuditRepository } from './audit.repository.js';
import type { AuditEntry, AuditFilter } from './audit.types.js';

/** The most rows one CSV export holds (narrow the time range for more). */
const EXPORT_MAX_ROWS = 50_000;
const EXPORT_PAGE = 1000;

function toDto(entry: AuditEntry): AuditEntryDto {
  return { ...entry, occurredAt: entry.occurredAt.toISOString(), actor: { ...entry.actor } };
}

function filterOf(query: AuditQueryDto): AuditFilter {
  return {
    from: query.from ? new Date(query.from) : undefined,
    to: query.to ? new Date(query.to) : undefined,
    resourceType: query.resourceType,
    action: query.action,
    actorKeyId: query.actorKeyId,
  };
}

/** The audit log (docs/http-edge.md "Audit log"): a tenant's operators and viewers read theirs; the platform admin any or all. */
@ApiTags('audit')
@Controller('admin/audit')
@Auth('operator', { platformAdmin: 'any-tenant' })
export class AuditController {
  constructor(
    private readonly repository: AuditRepository,
    private readonly audit: AuditLog,
    private readonly database: Database,
    private readonly config: AppConfig,
  ) {}

  @Get()
  @ApiOperation({ summary: 'Writes by operators and the platform admin, newest first: who, what, when, request id and a summary; filters and a cursor' })
  @ApiOkResponse({ type: AuditPageDto })
  async list(@Req() request: RequestWithPrincipal, @Query() query: AuditQueryDto): Promise<AuditPageDto> {
    const page = pageRequest(query);
    const result: Page<AuditEntry> = await this.repository.list(scopeOf(request, query.tenantId, true), filterOf(query), page.after, page.limit);
    return { items: result.items.map(toDto), nextCursor: result.nextCursor };
  }

  @Get('export')
  @Header('content-type', 'text/csv; charset=utf-8')
  @Header('content-disposition', 'attachment; filename="audit.csv"')
  @ApiProduces('text/csv')
  @ApiOperation({ summary: `The filtered log as CSV (newest first, at most ${EXPORT_MAX_ROWS} rows; formulas defused)` })
  async export(@Req() request: RequestWithPrincipal, @Query() query: AuditExportQueryDto): Promise<string> {
    const scope = scopeOf(request, query.tenantId, true);
    const filter = filterOf(query);
    const rows: AuditEntry[] = [];
    let after = null;
    do {
      const page = await this.repository.list(scope, filter, after, EXPORT_PAGE);
      rows.push(...page.items);
      after = page.nextCursor ? pageRequest({ cursor: page.nextCursor }).after : null;
    } while (after && rows.length < EXPORT_MAX_ROWS);
    const table = rows.slice(0, EXPORT_MAX_ROWS).map((e) => ({
      occurredAt: e.occurredAt.toISOString(),
      tenantId: e.tenantId,
      actorKind: e.actor.kind,
      actorKeyId: 'keyId' in e.actor ? (e.actor.keyId ?? '') : '',
      actorName: 'name' in e.actor ? (e.actor.name ?? '') : '',
      action: e.action,
      resourceType: e.resourceType,
      resourceId: e.resourceId ?? '',
      label: e.label ?? '',
      requestId: e.requestId ?? '',
      summary: JSON.stringify(e.summary),
    }));
    // escapeFormulae: a label or summary beginning with = + - @ is not run by a spreadsheet (CSV injection).
    const columns = ['occurredAt', 'tenantId', 'actorKind', 'actorKeyId', 'actorName', 'action', 'resourceType', 'resourceId', 'label', 'requestId', 'summary'];
    return `${Papa.unparse({ fields: columns, data: table.map((r) => columns.map((c) => r[c as keyof typeof r])) }, { escapeFormulae: true })}\r\n`;
  }

  @Get('settings')
  @ApiOperation({ summary: "How long the tenant's log is kept" })
  @ApiOkResponse({ type: AuditSettingsDto })
  async settings(@Req() request: RequestWithPrincipal, @Query() query: AuditScopeQueryDto): Promise<AuditSettingsDto> {
    const tenantId = scopeOf(request, query.tenantId);
    return { retentionDays: (await this.repository.retentionDays(tenantId)) ?? this.config.audit.retentionDays };
  }

  @Put('settings')
  @ApiOperation({ summary: "Set how long the tenant's log is kept (1–3650 days); older entries are deleted within the hour" })
  @ApiOkResponse({ type: AuditSettingsDto })
  async setSettings(@Req() request: RequestWithPrincipal, @Query() query: AuditScopeQueryDto, @Body() body: AuditSettingsDto): Promise<AuditSettingsDto> {
    const tenantId = scopeOf(request, query.tenantId);
    const before = (await this.repository.retentionDays(tenantId)) ?? this.config.audit.retentionDays;
    await this.database.transaction(async (tx) => {
      await this.repository.setRetentionDays(tx, tenantId, body.retentionDays);
      await this.audit.record(tx, tenantId, {
        action: 'update',
        resourceType: 'audit_settings',
        label: 'audit retention',
        summary: { before: { retentionDays: before }, after: { retentionDays: body.retentionDays } },
      });
    });
    return { retentionDays: body.retentionDays };
  }
}
