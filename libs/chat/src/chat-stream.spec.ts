import { describe, expect, it } from '@jest/globals';
import { AnswerRelay, sentencePieces, sseData, sseEvent, SSE_HEARTBEAT, wantsEventStream, type AnswerPreamble, type ChatDelta } from './chat-stream.js';

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

describe('AnswerRelay: the delta events', () => {
  const KEEP: AnswerPreamble = { stream: true, prefix: '' };
  const CAVEAT: AnswerPreamble = { stream: true, prefix: 'Note: partial.\n\n' };
  const DROP: AnswerPreamble = { stream: false };
  type Token = [step: number, text: string, preamble: AnswerPreamble];

  /** What a client holding the deltas shows: appended text, or the whole text on `replace`. */
  const shown = (deltas: ChatDelta[]) => deltas.reduce((text, d) => (d.replace ? d.text : text + d.text), '');

  it.each<[string, Token[], string, ChatDelta[]]>([
    ['no tokens (offline): the reply in sentence pieces', [], 'First. Second.', [{ text: 'First. ' }, { text: 'Second.' }]],
    [
      'tokens as they come, then the sources',
      [
        [1, 'Power ', KEEP],
        [1, 'off.', KEEP],
      ],
      'Power off.\n\nSources:\n[1] E201',
      [{ text: 'Power' }, { text: ' off.' }, { text: '\n\nSources:\n[1] E201' }],
    ],
    [
      'leading and trailing whitespace held back (the reply is trimmed)',
      [
        [1, '  \n', KEEP],
        [1, ' Power', KEEP],
        [1, ' off. ', KEEP],
        [1, '\n', KEEP],
      ],
      'Power off.',
      [{ text: 'Power' }, { text: ' off.' }],
    ],
    ['the caveat goes first', [[1, 'Maybe this.', CAVEAT]], 'Note: partial.\n\nMaybe this.', [{ text: 'Note: partial.\n\nMaybe this.' }]],
    [
      'a dropped answer (not found) streams nothing; the reply in pieces',
      [[1, 'Guess.', DROP]],
      'Not found. Ask support.',
      [{ text: 'Not found. ' }, { text: 'Ask support.' }],
    ],
    [
      'text of a model call that then called a tool is replaced by the next call',
      [
        [1, 'Let me look.', KEEP],
        [2, 'Power off.', KEEP],
      ],
      'Power off.',
      [{ text: 'Let me look.' }, { text: 'Power off.', replace: true }],
    ],
    [
      'a reply that is not what was streamed (timeout mid-answer) replaces it',
      [[1, 'Power of', KEEP]],
      'Offline answer.',
      [{ text: 'Power of' }, { text: 'Offline answer.', replace: true }],
    ],
  ])('%s', (_name, tokens, reply, expected) => {
    const deltas: ChatDelta[] = [];
    const relay = new AnswerRelay((d) => deltas.push(d));
    for (const [step, text, preamble] of tokens) relay.token(step, text, () => preamble);
    relay.finish(reply);
    expect(deltas).toEqual(expected);
    expect(shown(deltas)).toBe(reply);
    expect(relay.streamed).toBe(reply);
  });

  it('the reply sent before the turn is written (`answered`): the final finish with the same reply adds nothing, a failed turn replaces it', () => {
    const same: ChatDelta[] = [];
    const early = new AnswerRelay((d) => same.push(d));
    early.finish('First. Second.');
    early.finish('First. Second.');
    expect(same).toEqual([{ text: 'First. ' }, { text: 'Second.' }]);

    const failed: ChatDelta[] = [];
    const relay = new AnswerRelay((d) => failed.push(d));
    relay.finish('First. Second.');
    relay.finish('Sorry, something went wrong.');
    expect(failed.at(-1)).toEqual({ text: 'Sorry, something went wrong.', replace: true });
    expect(shown(failed)).toBe('Sorry, something went wrong.');
  });

  it('asks the policy once per model call, at its first visible text', () => {
    const asked: number[] = [];
    const relay = new AnswerRelay(() => undefined);
    const preamble = (step: number) => () => {
      asked.push(step);
      return KEEP;
    };
    relay.token(1, ' ', preamble(1));
    relay.token(1, 'a', preamble(1));
    relay.token(1, 'b', preamble(1));
    relay.token(2, 'c', preamble(2));
    expect(asked).toEqual([1, 2]);
  });
});
