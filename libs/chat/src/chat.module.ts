import { Module } from '@nestjs/common';
import { CaseLibraryModule } from '@arbiter/case-library';
import { CommonModule } from '@arbiter/common';
import { IntentModule } from '@arbiter/intent';
import { LlmModule } from '@arbiter/llm';
import { RetrievalModule } from '@arbiter/retrieval';
import { SessionsModule } from '@arbiter/sessions';
import { TenancyModule } from '@arbiter/tenancy';
import { ChatDemoSeeds } from './chat-demo.seeds.js';
import { CHAT_INTENT_ROUTER } from './chat-intent.port.js';
import { ChatController } from './chat.controller.js';
import { ChatRepository } from './chat.repository.js';
import { ChatService } from './chat.service.js';
import { ChatStreamService } from './chat-stream.service.js';
import { OpenAiCompatController } from './openai-compat.controller.js';
import { OpenAiCompatService } from './openai-compat.service.js';
import { IntentChatRouter } from './intent-chat-router.js';
import { KnowledgeAgentRunner } from './knowledge-agent.runner.js';

/** `POST /ai/chat` (and its OpenAI-compatible front door, `/v1`): the full pipeline (intent → knowledge → confidence → session, evaluation, coverage). */
@Module({
  imports: [IntentModule, CaseLibraryModule, RetrievalModule, SessionsModule, LlmModule, TenancyModule, CommonModule],
  controllers: [ChatController, OpenAiCompatController],
  providers: [
    ChatRepository,
    IntentChatRouter,
    { provide: CHAT_INTENT_ROUTER, useExisting: IntentChatRouter },
    KnowledgeAgentRunner,
    ChatService,
    ChatStreamService,
    OpenAiCompatService,
    ChatDemoSeeds,
  ],
  exports: [ChatService],
})
export class ChatModule {}
