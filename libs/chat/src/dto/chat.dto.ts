import { ApiProperty } from '@nestjs/swagger';
import { IsString, Matches, MaxLength } from 'class-validator';
import { ChannelField, ConversationIdField, MediaDto, MediaListField, UserRefField } from '@arbiter/sessions';

export const MAX_CHAT_MESSAGE_LENGTH = 4000;

export class ChatRequestDto {
  @ApiProperty({ description: 'The user message (Chinese or English)', maxLength: MAX_CHAT_MESSAGE_LENGTH, example: '机械臂报警 E201 怎么处理？' })
  @IsString()
  @Matches(/\S/, { message: 'message must not be empty' })
  @MaxLength(MAX_CHAT_MESSAGE_LENGTH)
  message: string;

  @ConversationIdField('Continue this conversation (its action memory carries over); omitted → a new conversation')
  conversationId?: string;

  @ChannelField()
  channel?: string;

  @UserRefField()
  userRef?: string;

  @MediaListField()
  media?: MediaDto[];
}

export class ChatCandidateDto {
  @ApiProperty({ example: 'fault_diagnosis' }) intent: string;
  @ApiProperty({ minimum: 0, maximum: 1, example: 0.38 }) confidence: number;
}

export class ChatReferenceDto {
  @ApiProperty({ example: 'faults/e201-servo-overcurrent.md' }) filePath: string;
  @ApiProperty({ example: 'E201 伺服过流报警' }) title: string;
  @ApiProperty({ minimum: 0, maximum: 1, description: 'Normalized similarity of the quoted chunk (1 − L2/maxL2Distance)' }) similarity: number;
  @ApiProperty({ enum: ['PRECISE', 'HIGHLY_RELEVANT', 'REFERENCE'], description: 'Relevance level of the lookup that returned it' }) relevanceLevel: string;
}

export class ChatResponseDto {
  @ApiProperty({ format: 'uuid', description: 'The session of this turn (GET /api/sessions/:id, feedback)' }) sessionId: string;
  @ApiProperty({ format: 'uuid' }) conversationId: string;
  @ApiProperty({ description: 'The reply to show the user, in the user language' }) reply: string;
  @ApiProperty({
    minimum: 0,
    maximum: 1,
    description:
      'When the knowledge base answered (a grounded reply with `references`): the retrieval confidence score of the lookup (seed 003: count 40% + quality 40% + scenario 20%). ' +
      'Otherwise — clarification, rule answer, hand-off, the not-found exit, or a pointer back to an earlier answer — the routing confidence (`finalConfidence` of the intent router).',
  })
  confidence: number;
  @ApiProperty({ description: 'True when a human should take over: hand-off intent, or the knowledge base could not answer (low confidence / legitimate exit)' })
  shouldTransfer: boolean;
  @ApiProperty({ description: 'True when the reply is a clarifying question listing `candidates` (no knowledge search was made)' })
  needClarify: boolean;
  @ApiProperty({ type: [ChatCandidateDto] }) candidates: ChatCandidateDto[];
  @ApiProperty({ nullable: true, type: String, description: 'The routed intent (null when nothing matched)' }) intent: string | null;
  @ApiProperty({ type: [ChatReferenceDto], description: 'Knowledge documents the reply is grounded on (empty for non-knowledge replies and the not-found exit)' })
  references: ChatReferenceDto[];
}
