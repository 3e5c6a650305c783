import { describe, expect, it } from '@jest/globals';
import { CURRENT_EXECUTOR_PROMPT_VERSION, EXECUTOR_PROMPT_VERSIONS, loadExecutorPrompt } from './executor-prompt.js';

describe('loadExecutorPrompt', () => {
  it('loads the current version by default', () => {
    expect(CURRENT_EXECUTOR_PROMPT_VERSION).toBe('v1');
    expect(loadExecutorPrompt()).toBe(loadExecutorPrompt('v1'));
  });

  it.each(EXECUTOR_PROMPT_VERSIONS)('%s carries the four retrieval rules in Chinese and English', (version) => {
    const text = loadExecutorPrompt(version);
    expect(text).toContain('## 检索约束');
    // replaces "always call a tool" (seed T5)
    expect(text).toContain('需要外部信息时调用工具，但须遵守下方的检索约束');
    // rule 1: recognise a repeat
    expect(text).toMatch(/判断重复[\s\S]*Recognise a repeat/);
    expect(text).toContain('doc_retrieved');
    expect(text).toContain('domain_retrieved');
    // rule 2: what to do on a repeat
    expect(text).toMatch(/重复了该怎么办[\s\S]*What to do on a repeat/);
    // rule 3: legitimate exit
    expect(text).toMatch(/合法出口[\s\S]*legitimate exit/);
    expect(text).toContain('没有查全不追责，重复检索才受罚');
    expect(text).toContain('Not finding everything is never punished; repeating a search is.');
    // rule 4: quality signals
    expect(text).toMatch(/利用质量信号[\s\S]*Use the quality signals/);
    for (const signal of [
      'relevanceLevel',
      'completenessHint',
      'retrievedDomainsThisSession',
      'PRECISE',
      'HIGHLY_RELEVANT',
      'REFERENCE',
      'PARTIAL',
      'INSUFFICIENT',
    ]) {
      expect(text).toContain(signal);
    }
    // no knowledge map is injected (seed T5)
    expect(text).not.toMatch(/knowledge map/i);
  });

  it.each(['v0', 'v2', '../../package', ''])('rejects unknown version %p', (version) => {
    expect(() => loadExecutorPrompt(version)).toThrow(/Unknown executor prompt version/);
  });

  it('names the missing file', () => {
    expect(() => loadExecutorPrompt('v1', '/nonexistent-root')).toThrow(/not found at \/nonexistent-root/);
  });
});
