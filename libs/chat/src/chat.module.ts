import { Module } from '@nestjs/common';
import { IntentModule } from '@arbiter/intent';
import { RetrievalModule } from '@arbiter/retrieval';
import { ChatDemoSeeds } from './chat-demo.seeds.js';
import { CHAT_INTENT_ROUTER } from './chat-intent.port.js';
import { ChatController } from './chat.controller.js';
import { ChatRepository } from './chat.repository.js';
import { ChatService } from './chat.service.js';
import { IntentChatRouter } from './intent-chat-router.js';
import { KnowledgeAgentRunner } from './knowledge-agent.runner.js';

/** `POST /ai/chat`: the full pipeline (intent → knowledge → confidence → session, evaluation, coverage). Needs the global Sessions, Llm and Tenancy modules. */
@Module({
  imports: [IntentModule, RetrievalModule],
  controllers: [ChatController],
  providers: [ChatRepository, IntentChatRouter, { provide: CHAT_INTENT_ROUTER, useExisting: IntentChatRouter }, KnowledgeAgentRunner, ChatService, ChatDemoSeeds],
  exports: [ChatService],
})
export class ChatModule {}
