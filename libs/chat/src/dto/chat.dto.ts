import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsOptional, IsString, MaxLength } from 'class-validator';
import { ChannelField, ConversationIdField, MediaDto, MediaListField, UserRefField } from '@arbiter/sessions';
import { NotBlank } from '@arbiter/common';
import type { ChatReference } from '../chat-turn.js';
import type { ChatResponse } from '../chat.service.js';
import type { Serialized } from '@arbiter/common';

export const MAX_CHAT_MESSAGE_LENGTH = 4000;

export class ChatRequestDto {
  @ApiProperty({ description: 'The user message (Chinese or English)', maxLength: MAX_CHAT_MESSAGE_LENGTH, example: '机械臂报警 E201 怎么处理？' })
  @IsString()
  @NotBlank({ message: 'message must not be empty' })
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

  @ApiPropertyOptional({
    description:
      'true → answer as server-sent events (route, lookup, delta…, done | error; docs/chat-clients.md), like `Accept: text/event-stream`; false → JSON whatever `Accept` says',
  })
  @IsOptional()
  @IsBoolean()
  stream?: boolean;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    example: { model: 'RX-200' },
    description:
      "Metadata filter of this turn's knowledge lookups (as the lookup's `filter`: {<metadata key>: value | [values]}); absent → the tenant's default (PUT /admin/knowledge/config `defaultFilter`). A bad filter is a 400 naming it.",
  })
  @IsOptional()
  filter?: Record<string, unknown>;
}

export class ChatCandidateDto {
  @ApiProperty({ example: 'fault_diagnosis' }) intent: string;
  @ApiProperty({ minimum: 0, maximum: 1, example: 0.38 }) confidence: number;
}

export class ChatReferenceDto implements Serialized<ChatReference> {
  @ApiProperty({ example: 'faults/e201-servo-overcurrent.md' }) filePath: string;
  @ApiProperty({ example: 'E201 伺服过流报警' }) title: string;
  @ApiProperty({ minimum: 0, maximum: 1, description: 'Normalized similarity of the quoted chunk (1 − L2/maxL2Distance)' }) similarity: number;
  @ApiProperty({ enum: ['PRECISE', 'HIGHLY_RELEVANT', 'REFERENCE'], description: 'Relevance level of the lookup that returned it' }) relevanceLevel: string;
  @ApiProperty({
    type: String,
    nullable: true,
    example: 'Manual.pdf',
    description: 'The uploaded file the quoted document was made from; null for JSON documents',
  })
  fileName: string | null;
  @ApiProperty({ type: Number, nullable: true, example: 48, description: '1-based first page of the quoted chunk (PDF); null otherwise' }) page: number | null;
  @ApiProperty({ type: Number, nullable: true, example: 48, description: '1-based last page of the quoted chunk (PDF); null otherwise' }) pageEnd:
    number | null;
  @ApiProperty({
    type: [String],
    nullable: true,
    example: ['1 Getting started', '1.4.7 Setting a default editor'],
    description: "The quoted chunk's section (heading path, outermost first); null without one",
  })
  section: string[] | null;
}

export class ChatCaseLibraryDto {
  @ApiProperty({ format: 'uuid', description: 'The verified case that answered (GET /admin/case-library/:id)' }) caseId: string;
  @ApiProperty({ description: "The case's question" }) query: string;
  @ApiProperty({ minimum: 0, maximum: 1, example: 0.93, description: 'Character n-gram TF-IDF cosine of the message and the question' }) similarity: number;
  @ApiProperty({ minimum: 0, maximum: 1, example: 0.85, description: "The tenant's threshold it met" }) threshold: number;
}

export class ChatResponseDto implements Serialized<ChatResponse> {
  @ApiProperty({ format: 'uuid', description: 'The session of this turn (GET /api/sessions/:id, feedback)' }) sessionId: string;
  @ApiProperty({ format: 'uuid' }) conversationId: string;
  @ApiProperty({ description: 'The reply to show the user, in the user language' }) reply: string;
  @ApiProperty({
    minimum: 0,
    maximum: 1,
    example: 0.82,
    description:
      'Kept for compatibility; prefer the named fields below. How far to trust the reply as an answer: for a knowledge answer (or a pointer back to an earlier one) the retrieval confidence (`retrievalConfidence`); ' +
      'for the not-found exit 0 — the reply carries no answer (`shouldTransfer` is true; the lookup score stays in `retrievalConfidence`), so a "not found" reply never reports the router\'s certainty; ' +
      "for a verified case's answer (`caseLibrary`) the case's similarity to the message; " +
      'for a reply that does not depend on the knowledge base (clarification, rule answer, hand-off) the routing confidence (`routingConfidence`); 0 for a failed run.',
  })
  confidence: number;
  @ApiProperty({
    minimum: 0,
    maximum: 1,
    example: 0.98,
    description: 'How sure the intent router is of `intent` (its fused `finalConfidence`), whatever the reply turned out to be',
  })
  routingConfidence: number;
  @ApiProperty({
    type: Number,
    nullable: true,
    minimum: 0,
    maximum: 1,
    example: 0.82,
    description:
      "Retrieval confidence score of the turn's best knowledge lookup (docs/spec/evaluation.md §2: result count 40 % + mean relevance 40 % + scenario 20 %); null when no lookup was made",
  })
  retrievalConfidence: number | null;
  @ApiProperty({
    type: Number,
    nullable: true,
    minimum: 0,
    maximum: 1,
    example: 0.75,
    description:
      'Self-evaluation of the answer (docs/spec/evaluation.md §1: 0–100, here scaled to 0–1) when it is stored before the reply leaves — the rule evaluation when no LLM is configured; ' +
      'null otherwise (an LLM self-evaluation runs after the reply: read `selfEvaluation` from GET /api/sessions/:id)',
  })
  answerConfidence: number | null;
  @ApiProperty({
    description: 'True when a human should take over: hand-off intent, or the knowledge base could not answer (low confidence / legitimate exit)',
  })
  shouldTransfer: boolean;
  @ApiProperty({ description: 'True when the reply is a clarifying question listing `candidates` (no knowledge search was made)' })
  needClarify: boolean;
  @ApiProperty({ type: [ChatCandidateDto] }) candidates: ChatCandidateDto[];
  @ApiProperty({ nullable: true, type: String, description: 'The routed intent (null when nothing matched)' }) intent: string | null;
  @ApiProperty({
    type: [ChatReferenceDto],
    description:
      'Knowledge documents the reply quotes (empty for non-knowledge replies, the not-found exit, and a pointer back to an earlier answer — whose session keeps the earlier references it points to)',
  })
  references: ChatReferenceDto[];
  @ApiProperty({
    type: ChatCaseLibraryDto,
    nullable: true,
    description:
      'Set when a verified case (a useful AUTO or a MANUAL case-library entry) answered: its question matched the message at or above the tenant threshold; `reply` is its answer. null otherwise',
  })
  caseLibrary: ChatCaseLibraryDto | null;
}
