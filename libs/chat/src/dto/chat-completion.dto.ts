import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Allow, IsArray, IsBoolean, IsOptional, IsString, MaxLength } from 'class-validator';
import { COMPLETION_ROLES, MAX_COMPLETION_CHARS, MAX_COMPLETION_MESSAGES } from '../openai-compat.js';

/**
 * `POST /v1/chat/completions` (docs/chat-clients.md): OpenAI's request. `messages` is checked message by message
 * (openai-compat.ts `mapCompletionMessages`, which names `messages[3].role`); OpenAI's sampling fields are
 * accepted so its clients work, and ignored (Arbiter's answer is grounded, not sampled).
 */
export class ChatCompletionRequestDto {
  @ApiProperty({
    description:
      `The conversation: the last message (role user) is the turn, earlier user/assistant messages its history (system and developer messages are accepted, not used). ` +
      `At most ${MAX_COMPLETION_MESSAGES} messages and ${MAX_COMPLETION_CHARS} characters of content (413 above); contents are non-empty strings.`,
    type: 'array',
    items: {
      type: 'object',
      properties: { role: { type: 'string', enum: [...COMPLETION_ROLES] }, content: { type: 'string' } },
      required: ['role', 'content'],
    },
    example: [{ role: 'user', content: '机械臂报警 E201 怎么处理？' }],
  })
  @IsArray()
  messages: unknown[];

  @ApiPropertyOptional({ description: 'Any value is accepted and echoed back; GET /v1/models lists `arbiter`', example: 'arbiter', maxLength: 200 })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  model?: string;

  @ApiPropertyOptional({ description: 'true → `chat.completion.chunk` server-sent events ending with `data: [DONE]`' })
  @IsOptional()
  @IsBoolean()
  stream?: boolean;

  @ApiPropertyOptional({ description: "Your end user's reference (stored as the session's userRef)", maxLength: 200 })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  user?: string;

  // Accepted for compatibility with OpenAI clients, not used.
  @Allow() temperature?: unknown;
  @Allow() top_p?: unknown;
  @Allow() n?: unknown;
  @Allow() stop?: unknown;
  @Allow() max_tokens?: unknown;
  @Allow() max_completion_tokens?: unknown;
  @Allow() presence_penalty?: unknown;
  @Allow() frequency_penalty?: unknown;
  @Allow() logit_bias?: unknown;
  @Allow() logprobs?: unknown;
  @Allow() seed?: unknown;
  @Allow() stream_options?: unknown;
  @Allow() response_format?: unknown;
  @Allow() metadata?: unknown;
  @Allow() store?: unknown;
  @Allow() reasoning_effort?: unknown;
}
