import { expect } from '@jest/globals';
import { DEMO_KNOWLEDGE } from '@arbiter/retrieval';
import { pollUntil } from '@arbiter/testing';
import type { TestApp, TestTenant } from './test-app.js';

/** Two intents: faults looked up in the knowledge base, a greeting answered by its rule. */
export const CHAT_RULES = [
  {
    intent: 'fault',
    description: '故障报警排查 / alarms and faults',
    keywords: ['报警', 'alarm'],
    semanticExamples: ['机械臂报警了怎么办', 'the arm shows an alarm'],
    action: 'knowledge',
    priority: 10,
  },
  {
    intent: 'greeting',
    description: '打招呼',
    keywords: ['你好'],
    semanticExamples: ['你好'],
    action: 'answer',
    reply: '您好！我是演示助手。有什么可以帮您？',
  },
];

/** A tenant with {@link CHAT_RULES} and the demo knowledge base, the intent judge off (deterministic routing). */
export async function seededChatTenant(t: TestApp, name: string): Promise<TestTenant> {
  const tenant = await t.createTenant(name);
  await seedChatTenant(t, tenant);
  return tenant;
}

/** Gives an existing tenant what {@link seededChatTenant} gives a new one. */
export async function seedChatTenant(t: TestApp, tenant: TestTenant): Promise<void> {
  for (const rule of CHAT_RULES) {
    const res = await t.request({ method: 'POST', url: '/admin/intent-rules', headers: { 'x-api-key': tenant.operatorKey }, payload: rule });
    expect(res.statusCode).toBe(201);
  }
  const cfg = await t.request({
    method: 'PUT',
    url: '/admin/intent-config',
    headers: { 'x-api-key': tenant.operatorKey },
    payload: { llmJudgeEnabled: false },
  });
  expect(cfg.statusCode).toBe(200);
  const bulk = await t.request({
    method: 'POST',
    url: '/admin/knowledge/documents/bulk',
    headers: { 'x-api-key': tenant.operatorKey },
    payload: DEMO_KNOWLEDGE as unknown as Record<string, unknown>[],
  });
  expect(bulk.statusCode).toBe(200);
  // The rules' classifier trains in the background: until it has, the semantic matcher's confidence differs
  // from one turn to the next (a CI run saw 0.87 then 0.99 for the same message).
  await pollUntil(
    `the classifier of ${tenant.name} settled`,
    async () =>
      (await t.request({ method: 'GET', url: '/admin/intent/status', headers: { 'x-api-key': tenant.operatorKey } })).json<{
        training: { state: string };
        classifierVersion: string | null;
        rulesVersion: string;
      }>(),
    (status) => status.training.state === 'idle' && status.classifierVersion === status.rulesVersion,
    { deadlineMs: 60_000, intervalMs: 100 },
  );
}
