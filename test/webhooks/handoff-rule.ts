import { expect } from '@jest/globals';
import type { TestApp, TestTenant } from '../support/test-app.js';

/**
 * The webhook e2e files' hand-off rule: "转人工" / "human" routes to the support desk (shouldTransfer), with the LLM
 * judge off so a turn's route never waits for a model.
 */
export async function addHandoffRule(t: TestApp, tenant: TestTenant): Promise<void> {
  const headers = { 'x-api-key': tenant.operatorKey };
  const rule = await t.request({
    method: 'POST',
    url: '/admin/intent-rules',
    headers,
    payload: {
      intent: 'human',
      description: '转人工 / talk to a human',
      keywords: ['转人工', 'human agent'],
      semanticExamples: ['我要转人工'],
      action: 'transfer',
    },
  });
  expect(rule.statusCode).toBe(201);
  expect((await t.request({ method: 'PUT', url: '/admin/intent-config', headers, payload: { llmJudgeEnabled: false } })).statusCode).toBe(200);
}
