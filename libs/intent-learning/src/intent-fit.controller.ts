import { Controller, Get, HttpCode, Param, ParseUUIDPipe, Post, Query } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBadRequestResponse, ApiBody, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { PageQueryDto, ParsedBody, type TenantId } from '@arbiter/common';
import { Auth, CurrentTenant } from '@arbiter/tenancy';
import { IntentFitDto, IntentFitPageDto, IntentFitRequestDto } from './dto/intent-fit.dto.js';
import { type FitRequest, IntentFitService, parseFitRequest } from './intent-fit.service.js';

@ApiTags('learning')
@Controller('admin/intent-config')
export class IntentFitController {
  constructor(private readonly fits: IntentFitService) {}

  @Post('fit')
  @Auth('operator')
  @HttpCode(202)
  @ApiOperation({
    summary:
      'Fit the routing thresholds, clarify band, fusion weights and aggregation on a labelled set (cross-validated; docs/learning.md). ' +
      'Answers 202 with the fit; GET /admin/intent-config/fits/:id gives the proposal and before/after metrics. Nothing is applied: ' +
      'PUT /admin/intent-config with the proposedConfig and If-Match: "<configVersion>".',
  })
  @ApiBody({ type: IntentFitRequestDto })
  @ApiAcceptedResponse({ type: IntentFitDto })
  @ApiBadRequestResponse({
    description: 'Bad body (fields named), fewer than 2 examples per intent or no out-of-scope example, or labels naming unknown intents',
  })
  @ApiNotFoundResponse({ description: 'No such labelled set in this tenant' })
  // Checked by parseFitRequest so every problem is named in one 400.
  request(@CurrentTenant() tenantId: TenantId, @ParsedBody(parseFitRequest) body: FitRequest) {
    return this.fits.request(tenantId, body);
  }

  @Get('fits')
  @Auth('operator')
  @ApiOperation({ summary: 'Fits of this tenant, newest first (cursor pagination)' })
  @ApiOkResponse({ type: IntentFitPageDto })
  list(@CurrentTenant() tenantId: TenantId, @Query() query: PageQueryDto) {
    return this.fits.list(tenantId, query);
  }

  @Get('fits/:id')
  @Auth('operator')
  @ApiOperation({ summary: 'One fit: status, and once succeeded the proposed config, before/after/cross-validated metrics and reliability' })
  @ApiOkResponse({ type: IntentFitDto })
  @ApiNotFoundResponse({ description: 'No such fit in this tenant' })
  get(@CurrentTenant() tenantId: TenantId, @Param('id', new ParseUUIDPipe()) id: string) {
    return this.fits.get(tenantId, id);
  }
}
