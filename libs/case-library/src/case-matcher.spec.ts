import { describe, expect, it } from '@jest/globals';
import { CaseIndex, caseThresholdProblems, DEFAULT_CASE_ANSWER_THRESHOLD, separateScripts, type IndexedCase } from './case-matcher.js';

const c = (id: string, query: string, extra: Partial<IndexedCase> = {}): IndexedCase => ({
  id,
  query,
  answer: `answer ${id}`,
  sourceType: 'AUTO',
  updatedAt: 0,
  ...extra,
});

const LIBRARY = [
  c('e201', '机械臂报警 E201 怎么处理？'),
  c('e105', '机械臂报警 E105 怎么处理？'),
  c('servo', '伺服电机过热怎么办'),
  c('estop', 'How do I reset the emergency stop?'),
  c('pendant', '示教器无法开机'),
];

describe('case-library threshold', () => {
  it.each([
    [0.85, true],
    [1, true],
    [0.000001, true],
    [0, false],
    [-0.1, false],
    [1.000001, false],
    [Number.NaN, false],
    [Number.POSITIVE_INFINITY, false],
    ['0.9', false],
    [null, false],
  ])('%p valid: %p', (value, valid) => {
    expect(caseThresholdProblems(value).length === 0).toBe(valid);
  });

  it('the default lies in (0, 1]', () => {
    expect(caseThresholdProblems(DEFAULT_CASE_ANSWER_THRESHOLD)).toEqual([]);
  });
});

describe('separateScripts', () => {
  it.each([
    ['报警E201怎么处理', '报警 E201 怎么处理'],
    ['报警 E201 怎么处理', '报警 E201 怎么处理'],
    ['E201报警', 'E201 报警'],
    ['hello world', 'hello world'],
    ['纯中文问题', '纯中文问题'],
  ])('%s → %s', (input, output) => {
    expect(separateScripts(input)).toBe(output);
  });
});

/**
 * The table behind the default threshold 0.85 (docs/learning.md "Feedback that teaches"): restatements
 * with the same content words answer; another error code, another question or added content does not.
 */
describe('CaseIndex similarity against a small library', () => {
  const index = CaseIndex.build(LIBRARY);
  it.each([
    // [message, expected best case, similarity at least, similarity below]
    ['机械臂报警 E201 怎么处理？', 'e201', 1, 1.000001],
    ['机械臂报警E201怎么处理', 'e201', 1, 1.000001],
    ['机械臂报警 e201 怎么处理!', 'e201', 1, 1.000001],
    ['ＨＯＷ do I reset the EMERGENCY stop', 'estop', 1, 1.000001],
    ['机械臂报警 E201 该怎么处理？', 'e201', 0.85, 1],
    ['reset the emergency stop, how do I', 'estop', 0.85, 1],
    ['机械臂报警 E202 怎么处理？', 'e201', 0, 0.85],
    ['请问机械臂报警 E201 怎么处理？谢谢', 'e201', 0, 0.85],
    ['How do I reset the robot?', 'estop', 0, 0.85],
    ['伺服电机过热了，还冒烟了，怎么办', 'servo', 0, 0.85],
  ])('%s → %s in [%p, %p)', (message, id, atLeast, below) => {
    const best = index.best(message);
    expect(best?.case.id).toBe(id);
    expect(best!.similarity).toBeGreaterThanOrEqual(atLeast);
    expect(best!.similarity).toBeLessThan(below);
  });

  it('another error code of the same question never reaches the default threshold', () => {
    for (const code of ['E105', 'E202', 'E200', 'E2010', 'F201']) {
      const best = index.best(`机械臂报警 ${code} 怎么处理？`);
      if (code === 'E105') expect(best?.case.id).toBe('e105');
      else expect(best === null || best.similarity < DEFAULT_CASE_ANSWER_THRESHOLD).toBe(true);
    }
  });

  it('match applies the threshold (inclusive); nothing in common → null', () => {
    expect(index.match('机械臂报警 E201 怎么处理？', 1)?.case.id).toBe('e201');
    const near = index.best('机械臂报警 E201 该怎么处理？')!;
    expect(index.match('机械臂报警 E201 该怎么处理？', near.similarity)?.case.id).toBe('e201');
    expect(index.match('机械臂报警 E201 该怎么处理？', near.similarity + 0.000001)).toBeNull();
    expect(index.best('zzz qqq')).toBeNull();
    expect(CaseIndex.empty.best('机械臂报警 E201 怎么处理？')).toBeNull();
  });

  it('equal questions: MANUAL before AUTO, then the most recently changed, then the smaller id', () => {
    const q = '示教器无法开机';
    expect(CaseIndex.build([c('b', q, { updatedAt: 1 }), c('a', q, { updatedAt: 2 })]).best(q)?.case.id).toBe('a');
    expect(CaseIndex.build([c('b', q, { updatedAt: 2 }), c('a', q, { updatedAt: 1 })]).best(q)?.case.id).toBe('b');
    expect(CaseIndex.build([c('a', q, { updatedAt: 9 }), c('m', q, { sourceType: 'MANUAL' })]).best(q)?.case.id).toBe('m');
    expect(CaseIndex.build([c('b', q), c('a', q)]).best(q)?.case.id).toBe('a');
  });

  it('the IDF is the tenant’s: a word every case shares weighs less than a rare one', () => {
    const shared = CaseIndex.build([c('x', 'robot alarm one'), c('y', 'robot alarm two'), c('z', 'robot alarm three')]);
    const alone = CaseIndex.build([c('x', 'robot alarm one')]);
    // "robot alarm" is in every case of `shared`: matching on it alone counts for less there.
    expect(shared.best('robot alarm')!.similarity).toBeLessThan(alone.best('robot alarm')!.similarity);
  });
});
