import { Controller, HttpCode, Param, ParseUUIDPipe, Post } from '@nestjs/common';
import { ApiConflictResponse, ApiNotFoundResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { TenantId } from '@arbiter/common';
import { SelfEvaluationDto } from '@arbiter/sessions';
import { Auth, CurrentTenant } from '@arbiter/tenancy';
import { EvaluationService } from './evaluation.service.js';

@ApiTags('evaluation')
@Controller('admin/sessions')
@Auth('operator')
export class EvaluationController {
  constructor(private readonly evaluation: EvaluationService) {}

  @Post(':id/evaluate')
  @HttpCode(200)
  @ApiOkResponse({ type: SelfEvaluationDto, description: 'Re-runs the self-evaluation now (LLM when configured, rule fallback otherwise) and returns it' })
  @ApiNotFoundResponse({ description: 'No such session in this tenant' })
  @ApiConflictResponse({ description: 'The session is still PENDING/RUNNING' })
  evaluate(@CurrentTenant() tenantId: TenantId, @Param('id', new ParseUUIDPipe()) id: string): Promise<SelfEvaluationDto> {
    return this.evaluation.evaluateNow(tenantId, id);
  }
}
