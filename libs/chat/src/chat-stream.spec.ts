import { describe, expect, it } from '@jest/globals';
import { sentencePieces, sseData, sseEvent, SSE_HEARTBEAT, wantsEventStream } from './chat-stream.js';

describe('sseEvent', () => {
  it.each([
    ['route', { intent: 'fault', confidence: 0.9 }, 'event: route\ndata: {"intent":"fault","confidence":0.9}\n\n'],
    ['delta', { text: 'line one\nline two' }, 'event: delta\ndata: {"text":"line one\\nline two"}\n\n'],
    ['done', { reply: '好' }, 'event: done\ndata: {"reply":"好"}\n\n'],
    ['error', { statusCode: 503 }, 'event: error\ndata: {"statusCode":503}\n\n'],
  ] as const)('%s → one event with one line of JSON', (name, data, expected) => {
    const encoded = sseEvent(name, data);
    expect(encoded).toBe(expected);
    expect(encoded.split('\n').filter((l) => l.startsWith('data: '))).toHaveLength(1);
  });

  it('encodes OpenAI-style unnamed data lines and the [DONE] sentinel', () => {
    expect(sseData({ object: 'chat.completion.chunk' })).toBe('data: {"object":"chat.completion.chunk"}\n\n');
    expect(sseData('[DONE]')).toBe('data: [DONE]\n\n');
  });

  it('heartbeats are comments (a leading colon), which SSE clients ignore', () => {
    expect(SSE_HEARTBEAT.startsWith(':')).toBe(true);
    expect(SSE_HEARTBEAT.endsWith('\n\n')).toBe(true);
  });
});

describe('sentencePieces', () => {
  it.each([
    ['', []],
    ['One sentence without end', ['One sentence without end']],
    ['First. Second! Third?', ['First. ', 'Second! ', 'Third?']],
    ['先断电。再检查线缆！完成', ['先断电。', '再检查线缆！', '完成']],
    ['Version 2.1 is out. Update now.', ['Version 2.1 is out. ', 'Update now.']],
    ['Line one\nLine two', ['Line one\n', 'Line two']],
    ['步骤：1；2；3', ['步骤：1；', '2；', '3']],
  ])('%j → %j', (text, expected) => {
    const pieces = sentencePieces(text);
    expect(pieces).toEqual(expected);
    expect(pieces.join('')).toBe(text);
  });
});

describe('wantsEventStream', () => {
  it.each([
    [undefined, undefined, false],
    ['application/json', undefined, false],
    ['text/event-stream', undefined, true],
    ['application/json, TEXT/EVENT-STREAM;q=0.9', undefined, true],
    [['application/json', 'text/event-stream'], undefined, true],
    ['text/event-streams', undefined, false],
    [undefined, true, true],
    ['application/json', true, true],
    ['text/event-stream', false, false],
  ] as const)('Accept %j, stream %j → %j', (accept, stream, expected) => {
    expect(wantsEventStream(accept as string | string[] | undefined, stream)).toBe(expected);
  });
});
