import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBadRequestResponse, ApiConflictResponse, ApiNotFoundResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { TenantId } from '@arbiter/common';
import { Auth, CurrentTenant } from '@arbiter/tenancy';
import { FeedbackResultDto, SubmitFeedbackDto } from './dto/feedback.dto.js';
import { FeedbackService } from './feedback.service.js';

@ApiTags('feedback')
@Controller('api/feedback')
@Auth('client')
export class FeedbackController {
  constructor(private readonly feedback: FeedbackService) {}

  @Post()
  @HttpCode(200)
  @ApiOkResponse({ type: FeedbackResultDto, description: 'not_useful → BAD_CASE; useful → one AUTO case; repeats are idempotent' })
  @ApiBadRequestResponse({ description: 'Invalid feedback value, id or comment (over 1,000 characters)' })
  @ApiNotFoundResponse({ description: 'No such session in this tenant' })
  @ApiConflictResponse({ description: 'Session still PENDING/RUNNING, or useful on a session with no answer (FAILED)' })
  submit(@CurrentTenant() tenantId: TenantId, @Body() body: SubmitFeedbackDto): Promise<FeedbackResultDto> {
    return this.feedback.submit(tenantId, body);
  }
}
