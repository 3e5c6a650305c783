import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, IsUUID, MaxLength } from 'class-validator';
import { FEEDBACK_VALUES, SESSION_STATUSES, type FeedbackValue } from '@arbiter/sessions';
import { MAX_COMMENT_LENGTH } from '../feedback.types.js';

export class SubmitFeedbackDto {
  @ApiProperty({ format: 'uuid' })
  @IsUUID()
  sessionId: string;

  @ApiProperty({ enum: FEEDBACK_VALUES })
  @IsIn(FEEDBACK_VALUES)
  feedback: FeedbackValue;

  @ApiPropertyOptional({ maxLength: MAX_COMMENT_LENGTH, description: 'Why (shown in the bad-case review queue)' })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_COMMENT_LENGTH)
  comment?: string;
}

export class FeedbackResultDto {
  @ApiProperty({ format: 'uuid' }) sessionId: string;
  @ApiProperty({ enum: FEEDBACK_VALUES }) feedback: string;
  @ApiProperty({ enum: SESSION_STATUSES, description: 'The session status after the feedback (BAD_CASE for not_useful)' }) status: string;
  @ApiProperty({ format: 'uuid', nullable: true, type: String, description: "The session's active case-library entry (useful), else null" }) caseId:
    string | null;
}
