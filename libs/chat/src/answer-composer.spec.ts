import { describe, expect, it } from '@jest/globals';
import { isExplicitNoAnswer } from '@arbiter/coverage';
import { composeExtractiveAnswer, extractSentences, leadingText, queryTerms, selectChunks, splitSentences, type ComposerChunk } from './answer-composer.js';

const E201: ComposerChunk = {
  filePath: 'faults/e201.md',
  title: 'E201 伺服过流报警',
  content:
    '# E201 伺服过流报警\nE201 表示伺服驱动器检测到过电流。常见原因是电机动力线短路或负载过大。处理步骤：1. 先按下急停。2. 关闭控制柜主电源 5 分钟后检查动力线绝缘。确认无误后上电并在示教器上复位报警。',
  similarity: 0.82,
  source: 'L1',
};
const E202: ComposerChunk = {
  filePath: 'faults/e202.md',
  title: 'E202 编码器通信异常',
  content: 'E202 表示编码器通信中断。检查编码器电缆接头。',
  similarity: 0.78,
  source: 'L1',
};
const FAR: ComposerChunk = { filePath: 'orders/refund.md', title: '退款政策', content: '签收后 7 天内可申请退款。', similarity: 0.5, source: 'L1' };

describe('answer composer', () => {
  it('builds query terms from words, codes and Chinese bigrams', () => {
    expect([...queryTerms('E201 报警')]).toEqual(['e201', '报警']);
    expect(queryTerms('a 报')).toEqual(new Set(['报']));
  });

  it('splits sentences on Chinese and English punctuation but keeps versions whole', () => {
    expect(splitSentences('先断电。再上电！Update to v2.3.1 first. Then reboot')).toEqual(['先断电。', '再上电！', 'Update to v2.3.1 first.', 'Then reboot']);
  });

  it('extracts the sentences sharing terms with the question, in document order', () => {
    const text = extractSentences(E201.content, 'E201 报警怎么复位', 200);
    expect(text).toContain('E201 表示伺服驱动器检测到过电流');
    expect(text).toContain('复位报警');
    expect(text.indexOf('E201 表示')).toBeLessThan(text.indexOf('复位报警'));
  });

  it('falls back to the opening sentence without any overlap', () => {
    expect(extractSentences('First sentence. Second sentence.', 'zzz', 100)).toBe('First sentence.');
  });

  it('quotes exact hits only when there are some, else the best document and close runners-up', () => {
    const l0 = { ...E202, source: 'L0' as const };
    expect(selectChunks([E201, l0, FAR]).map((c) => c.filePath)).toEqual(['faults/e202.md']);
    expect(selectChunks([E201, { ...E202, similarity: 0.8 }, FAR]).map((c) => c.filePath)).toEqual(['faults/e201.md', 'faults/e202.md']);
    expect(selectChunks([E201, E202, FAR]).map((c) => c.filePath)).toEqual(['faults/e201.md']);
    expect(selectChunks([])).toEqual([]);
  });

  it('keeps every step of the best chunk, cut at a sentence end', () => {
    const text = leadingText(E201.content, 700);
    expect(text).toContain('2. 关闭控制柜主电源');
    expect(text).not.toMatch(/^#/);
    expect(leadingText('One. Two. Three.', 8)).toBe('One. Two.…');
  });

  it('cites its sources and never reads as a no-answer', () => {
    const zh = composeExtractiveAnswer('zh', 'E201 报警怎么处理', [E201, E202, FAR]);
    expect(zh.text).toMatch(/^根据知识库资料：/);
    expect(zh.text).toContain('参考资料：\n[1] E201 伺服过流报警 (faults/e201.md)');
    expect(zh.text).toContain('2. 关闭控制柜主电源');
    expect(zh.used).toHaveLength(1);
    const two = composeExtractiveAnswer('zh', 'E20x 报警', [E201, { ...E202, similarity: 0.81 }]);
    expect(two.text).toContain('[2] E202 编码器通信异常 (faults/e202.md)');
    expect(isExplicitNoAnswer(zh.text)).toBe(false);
    const en = composeExtractiveAnswer('en', 'E201 alarm', [E201], { caveat: { bestRelevance: 0.42 } });
    expect(en.text.split('\n')[0]).toMatch(/^Note:.*closest reference material \(relevance 42%\)/);
    expect(en.text).toContain('Sources:\n[1] E201 伺服过流报警 (faults/e201.md)');
  });
});
