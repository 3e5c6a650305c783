import { describe, expect, it } from '@jest/globals';
import type { ChatResponse } from './chat.service.js';
import { completionBody, completionChunk, mapCompletionMessages, MAX_COMPLETION_CHARS, MAX_COMPLETION_MESSAGES, modelList } from './openai-compat.js';

const user = (content: unknown) => ({ role: 'user', content });

describe('mapCompletionMessages: messages → one turn', () => {
  it.each([
    ['one user message', [user('E201 怎么处理？')], { message: 'E201 怎么处理？', history: [], ignoredInstructions: 0 }],
    [
      'history before the last user message',
      [{ role: 'system', content: 'be brief' }, user('hi'), { role: 'assistant', content: 'hello' }, user(' E201? ')],
      {
        message: 'E201?',
        history: [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: 'hello' },
        ],
        ignoredInstructions: 1,
      },
    ],
    ['a developer message is accepted, not used', [{ role: 'developer', content: 'x' }, user('q')], { message: 'q', history: [], ignoredInstructions: 1 }],
  ])('%s', (_name, messages, turn) => {
    expect(mapCompletionMessages(messages)).toEqual({ ok: true, turn });
  });

  it.each([
    ['not an array', 'hi', 400, 'messages'],
    ['empty', [], 400, 'messages'],
    ['a message that is not an object', [user('a'), 'b'], 400, 'messages[1]'],
    ['an unknown role', [user('a'), user('b'), user('c'), { role: 'tool', content: 'x' }, user('d')], 400, 'messages[3].role'],
    ['a missing role', [{ content: 'x' }], 400, 'messages[0].role'],
    ['an empty content', [user('   ')], 400, 'messages[0].content'],
    ['a non-string content', [user([{ type: 'text', text: 'hi' }])], 400, 'messages[0].content'],
    ['a null content', [user(null)], 400, 'messages[0].content'],
    ['the last message not the user', [user('a'), { role: 'assistant', content: 'b' }], 400, 'messages[1].role'],
    ['the question over 4,000 characters', [user('x'.repeat(4001))], 400, 'messages[0].content'],
    ['too many messages', Array.from({ length: MAX_COMPLETION_MESSAGES + 1 }, () => user('a')), 413, 'messages'],
    ['too many characters', [user('x'.repeat(MAX_COMPLETION_CHARS)), user('y')], 413, 'messages'],
  ])('%s → %d naming %s', (_name, messages, status, field) => {
    const mapped = mapCompletionMessages(messages);
    expect(mapped.ok).toBe(false);
    if (mapped.ok) return;
    expect(mapped.status).toBe(status);
    expect(mapped.errors[0].field).toBe(field);
    expect(mapped.errors[0].errors[0].length).toBeGreaterThan(0);
  });

  it('names every offending field at once', () => {
    const mapped = mapCompletionMessages([{ role: 'bot', content: 1 }, user('ok')]);
    expect(mapped).toMatchObject({ ok: false, status: 400, errors: [{ field: 'messages[0].role' }, { field: 'messages[0].content' }] });
  });

  it.each([
    [
      '3 earlier user messages, limit 2',
      [user('a'), user('b'), user('c'), user('q')],
      { turns: 2, chars: 100 },
      /at most 2 earlier user messages.*CHAT_HISTORY_TURNS.*got 3/,
    ],
    [
      '11 earlier characters, limit 10',
      [user('abcde'), { role: 'assistant', content: 'fghijk' }, user('q')],
      { turns: 5, chars: 10 },
      /at most 10 characters.*CHAT_HISTORY_CHARS.*got 11/,
    ],
  ])('the conversation history over its configured limits (%s) → 413 naming the limit', (_name, messages, limits, message) => {
    const mapped = mapCompletionMessages(messages, limits);
    expect(mapped).toMatchObject({ ok: false, status: 413, errors: [{ field: 'messages', errors: [expect.stringMatching(message)] }] });
  });

  it('a history at its configured limits passes (system messages and the question do not count)', () => {
    const messages = [{ role: 'system', content: 'x'.repeat(50) }, user('abcde'), { role: 'assistant', content: 'fghij' }, user('q'.repeat(30))];
    expect(mapCompletionMessages(messages, { turns: 1, chars: 10 })).toMatchObject({ ok: true, turn: { history: [{ role: 'user' }, { role: 'assistant' }] } });
  });

  it('the limits name themselves', () => {
    const mapped = mapCompletionMessages(Array.from({ length: MAX_COMPLETION_MESSAGES + 1 }, () => user('a')));
    expect(mapped.ok ? '' : mapped.errors[0].errors[0]).toContain(String(MAX_COMPLETION_MESSAGES));
  });
});

describe('completion bodies', () => {
  const response: ChatResponse = {
    sessionId: 's1',
    conversationId: 'c1',
    reply: '先断电。再检查。',
    confidence: 0.8,
    routingConfidence: 0.9,
    retrievalConfidence: 0.8,
    answerConfidence: null,
    shouldTransfer: false,
    needClarify: false,
    candidates: [],
    intent: 'fault',
    references: [
      { filePath: 'a.md', title: 'A', similarity: 0.7, relevanceLevel: 'PRECISE', fileName: 'Manual.pdf', page: 3, pageEnd: 4, section: ['Faults', 'E201'] },
    ],
    caseLibrary: null,
  };
  const identity = { id: 'chatcmpl-1', created: 1700000000, model: 'gpt-4o' };

  it('the non-streaming body is a chat.completion with the reply as content and Arbiter fields in `arbiter`', () => {
    const body = completionBody(identity, response);
    expect(body).toMatchObject({
      id: 'chatcmpl-1',
      object: 'chat.completion',
      model: 'gpt-4o',
      choices: [{ index: 0, message: { role: 'assistant', content: response.reply }, finish_reason: 'stop' }],
    });
    const { reply: _reply, ...rest } = response;
    expect(body.arbiter).toEqual(rest);
    expect(body.arbiter).not.toHaveProperty('reply');
  });

  it('chunks open with the role, carry content, and finish with `arbiter`', () => {
    expect(completionChunk(identity, { kind: 'open' }).choices[0].delta).toEqual({ role: 'assistant', content: '' });
    expect(completionChunk(identity, { kind: 'content', content: '先断电。' })).toMatchObject({
      object: 'chat.completion.chunk',
      choices: [{ delta: { content: '先断电。' }, finish_reason: null }],
    });
    const last = completionChunk(identity, { kind: 'finish', response, contentIsReply: true });
    expect(last).toMatchObject({ choices: [{ delta: {}, finish_reason: 'stop' }], arbiter: { sessionId: 's1', shouldTransfer: false } });
  });

  it('lists the one model, arbiter', () => {
    expect(modelList().data.map((m) => m.id)).toEqual(['arbiter']);
  });
});
