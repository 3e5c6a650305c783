// Public surface of the chat lib.
// Pure logic (no Nest, no database): language, fixed texts, confidence policy, extractive answers, agent loop, follow-up rewriting.
export * from './chat-language.js';
export * from './chat-texts.js';
export * from './confidence-policy.js';
export * from './reply-confidence.js';
export * from './carried-references.js';
export * from './answer-composer.js';
export * from './knowledge-agent.js';
export * from './lookup-ranking.js';
export * from './chat-stream.js';
export * from './openai-compat.js';
export * from './follow-up-rewrite.js';
export type { ChatBranch, ChatReference, ChatTrace } from './chat-turn.js';
// Nest module and its services.
export * from './chat-intent.port.js';
export * from './chat.exception.js';
export * from './dto/chat.dto.js';
export * from './dto/chat-completion.dto.js';
export { ChatService, type ChatResponse } from './chat.service.js';
export { KnowledgeAgentRunner } from './knowledge-agent.runner.js';
export { ChatDemoSeeds, seedDemoKnowledge } from './chat-demo.seeds.js';
export * from './chat.module.js';
