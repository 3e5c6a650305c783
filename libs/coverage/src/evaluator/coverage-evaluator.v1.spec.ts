import { describe, expect, it } from '@jest/globals';
import { CoverageErrorCode, CoverageException } from '../coverage.exception.js';
import {
  CoverageEvaluatorV1,
  HUMAN_ESCALATION_PHRASES,
  NO_ANSWER_PHRASES,
  RETRIEVAL_GAP_PHRASES,
  hasImageMedia,
  isExplicitNoAnswer,
  verdictOf,
} from './coverage-evaluator.v1.js';
import { COVERAGE_REASON_CODES, type CoverageInput, type CoverageReasonCode, type CoverageVerdict } from './coverage.types.js';

const evaluator = new CoverageEvaluatorV1();

function input(overrides: Partial<CoverageInput> = {}): CoverageInput {
  return {
    sessionId: 's-1',
    tenantId: 't-1',
    channel: 'web',
    status: 'SUCCESS',
    answer: '请按住复位键 3 秒。',
    references: [],
    media: [],
    knowledgeSearched: false,
    ...overrides,
  };
}

const REFS = [{ score: 0.42 }, { score: 0.91 }, { score: 0.1 }];
const IMAGE = [{ type: 'image', url: 'https://x/y.png' }];

interface Row {
  name: string;
  given: Partial<CoverageInput>;
  verdict: CoverageVerdict;
  reasonCode: CoverageReasonCode;
  referenceCount: number;
  topScore: number;
}

/** Every rule of docs/spec/coverage.md, in priority order, with the neighbouring cases that must not fire. */
const TABLE: Row[] = [
  // Rule 1 — explicit no-answer beats everything below it.
  { name: 'no-answer phrase, text, no refs, not searched', given: { answer: '抱歉，未找到相关资料。' }, verdict: 'uncovered', reasonCode: 'uncovered_explicit_no_answer', referenceCount: 0, topScore: 0 },
  { name: 'no-answer phrase beats references (count and topScore still reported)', given: { answer: '知识库中没有该型号的说明', references: REFS, knowledgeSearched: true }, verdict: 'uncovered', reasonCode: 'uncovered_explicit_no_answer', referenceCount: 3, topScore: 0.91 },
  { name: 'no-answer phrase beats image + references', given: { answer: '无法确定图片中的故障', references: REFS, media: IMAGE }, verdict: 'uncovered', reasonCode: 'uncovered_explicit_no_answer', referenceCount: 3, topScore: 0.91 },
  { name: 'no-answer phrase beats image without search (would be visual recognition)', given: { answer: '暂无相关信息', media: IMAGE }, verdict: 'uncovered', reasonCode: 'uncovered_explicit_no_answer', referenceCount: 0, topScore: 0 },
  { name: 'no-answer phrase beats "not searched" (would be non-knowledge)', given: { answer: '产品不存在于资料中' }, verdict: 'uncovered', reasonCode: 'uncovered_explicit_no_answer', referenceCount: 0, topScore: 0 },
  { name: 'phrase surrounded by whitespace and mixed text', given: { answer: '  \n The manual: 没有找到 X-200 的参数 \t ' }, verdict: 'uncovered', reasonCode: 'uncovered_explicit_no_answer', referenceCount: 0, topScore: 0 },
  { name: 'retrieval gap + escalation → no-answer', given: { answer: '未检索到相关内容，建议您联系售后。', references: REFS }, verdict: 'uncovered', reasonCode: 'uncovered_explicit_no_answer', referenceCount: 3, topScore: 0.91 },
  { name: 'retrieval gap + escalation (other phrases)', given: { answer: '未能查询到该订单，请联系技术支持', knowledgeSearched: true }, verdict: 'uncovered', reasonCode: 'uncovered_explicit_no_answer', referenceCount: 0, topScore: 0 },
  // A retrieval-gap phrase alone is a valid negative result, not a no-answer.
  { name: 'retrieval gap without escalation + refs → covered', given: { answer: '未查询到异常记录，设备运行正常。', references: REFS, knowledgeSearched: true }, verdict: 'covered', reasonCode: 'covered_has_references', referenceCount: 3, topScore: 0.91 },
  { name: 'retrieval gap without escalation, not searched → non-knowledge', given: { answer: '未查询到异常记录' }, verdict: 'covered', reasonCode: 'covered_non_knowledge_response', referenceCount: 0, topScore: 0 },
  { name: 'escalation without retrieval gap + refs → covered', given: { answer: '如需更换电机，请联系官方销售。', references: [{ score: 0.7 }] }, verdict: 'covered', reasonCode: 'covered_has_references', referenceCount: 1, topScore: 0.7 },
  // Rule 2 — image turns.
  { name: 'image + references → covered_has_references', given: { media: IMAGE, references: REFS, knowledgeSearched: true }, verdict: 'covered', reasonCode: 'covered_has_references', referenceCount: 3, topScore: 0.91 },
  { name: 'image + references, not searched → still covered_has_references', given: { media: IMAGE, references: [{ score: 0.3 }] }, verdict: 'covered', reasonCode: 'covered_has_references', referenceCount: 1, topScore: 0.3 },
  { name: 'image, no refs, searched → uncovered_no_references', given: { media: IMAGE, knowledgeSearched: true }, verdict: 'uncovered', reasonCode: 'uncovered_no_references', referenceCount: 0, topScore: 0 },
  { name: 'image, no refs, not searched → covered_visual_recognition', given: { media: IMAGE }, verdict: 'covered', reasonCode: 'covered_visual_recognition', referenceCount: 0, topScore: 0 },
  { name: 'image type trimmed and case-insensitive', given: { media: [{ type: '  IMAGE \n' }] }, verdict: 'covered', reasonCode: 'covered_visual_recognition', referenceCount: 0, topScore: 0 },
  { name: 'image among other media', given: { media: [{ type: 'audio' }, { type: 'Image' }] }, verdict: 'covered', reasonCode: 'covered_visual_recognition', referenceCount: 0, topScore: 0 },
  { name: 'non-image media is a text turn', given: { media: [{ type: 'image/png' }, { type: 'video' }] }, verdict: 'covered', reasonCode: 'covered_non_knowledge_response', referenceCount: 0, topScore: 0 },
  { name: 'media without a type is a text turn', given: { media: [{}, { type: 42 }] }, verdict: 'covered', reasonCode: 'covered_non_knowledge_response', referenceCount: 0, topScore: 0 },
  // Rule 3 — text turns without references.
  { name: 'text, no refs, searched → uncovered_no_references', given: { knowledgeSearched: true }, verdict: 'uncovered', reasonCode: 'uncovered_no_references', referenceCount: 0, topScore: 0 },
  { name: 'text, no refs, not searched (greeting) → covered_non_knowledge_response', given: { answer: '你好！有什么可以帮您？' }, verdict: 'covered', reasonCode: 'covered_non_knowledge_response', referenceCount: 0, topScore: 0 },
  { name: 'null references / media / answer behave as empty', given: { answer: null, references: null, media: null, knowledgeSearched: true }, verdict: 'uncovered', reasonCode: 'uncovered_no_references', referenceCount: 0, topScore: 0 },
  // Rule 4 — references, never a score threshold.
  { name: 'text + references → covered_has_references', given: { references: REFS, knowledgeSearched: true }, verdict: 'covered', reasonCode: 'covered_has_references', referenceCount: 3, topScore: 0.91 },
  { name: 'tiny scores still cover (no threshold in v1)', given: { references: [{ score: 0.0001 }], knowledgeSearched: true }, verdict: 'covered', reasonCode: 'covered_has_references', referenceCount: 1, topScore: 0.0001 },
  { name: 'zero / negative scores: covered, topScore floors at 0 like the seed', given: { references: [{ score: -0.5 }, { score: 0 }], knowledgeSearched: true }, verdict: 'covered', reasonCode: 'covered_has_references', referenceCount: 2, topScore: 0 },
  { name: 'BAD_CASE sessions are succeeded sessions', given: { status: 'BAD_CASE', references: [{ score: 0.6 }] }, verdict: 'covered', reasonCode: 'covered_has_references', referenceCount: 1, topScore: 0.6 },
];

describe('CoverageEvaluatorV1', () => {
  it('is version v1', () => {
    expect(evaluator.version).toBe('v1');
  });

  it.each(TABLE)('$name', ({ given, verdict, reasonCode, referenceCount, topScore }) => {
    expect(evaluator.evaluate(input(given))).toEqual({
      sessionId: 's-1',
      tenantId: 't-1',
      channel: 'web',
      evaluatorVersion: 'v1',
      verdict,
      reasonCode,
      referenceCount,
      topScore,
    });
  });

  it('the table reaches every reason code', () => {
    expect(new Set(TABLE.map((r) => r.reasonCode))).toEqual(new Set(COVERAGE_REASON_CODES));
  });

  it.each(['FAILED', 'PENDING', 'RUNNING', 'succeeded', 'success', ''])('rejects status %p with SESSION_NOT_SUCCEEDED (409)', (status) => {
    const run = () => evaluator.evaluate(input({ status, references: REFS }));
    expect(run).toThrow(CoverageException);
    try {
      run();
    } catch (e) {
      expect(e).toMatchObject({ code: CoverageErrorCode.SessionNotSucceeded, status: 409 });
    }
  });

  it.each([
    ['string', '0.9'],
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['null', null],
    ['missing', undefined],
    ['object', { value: 1 }],
  ])('reports a %s score as MALFORMED_REFERENCE naming the reference, whatever rule would fire', (_label, score) => {
    for (const answer of ['正常回答', '未找到']) {
      try {
        evaluator.evaluate(input({ answer, references: [{ score: 0.5 }, { score }] }));
        throw new Error('expected a throw');
      } catch (e) {
        expect(e).toBeInstanceOf(CoverageException);
        expect(e).toMatchObject({ code: CoverageErrorCode.MalformedReference, status: 422, details: { sessionId: 's-1', referenceIndex: 1 } });
      }
    }
  });
});

describe('isExplicitNoAnswer', () => {
  it.each(NO_ANSWER_PHRASES.map((p) => [p]))('every no-answer phrase fires alone: %s', (phrase) => {
    expect(isExplicitNoAnswer(`前缀${phrase}后缀`)).toBe(true);
  });

  const pairs = RETRIEVAL_GAP_PHRASES.flatMap((gap) => HUMAN_ESCALATION_PHRASES.map((esc) => [gap, esc]));
  it.each(pairs)('gap %s + escalation %s fires', (gap, esc) => {
    expect(isExplicitNoAnswer(`${gap}相关说明，${esc}我们。`)).toBe(true);
  });

  it.each(RETRIEVAL_GAP_PHRASES.map((p) => [p]))('gap phrase %s alone does not fire', (gap) => {
    expect(isExplicitNoAnswer(`${gap}异常记录`)).toBe(false);
  });

  it.each(HUMAN_ESCALATION_PHRASES.map((p) => [p]))('escalation phrase %s alone does not fire', (esc) => {
    expect(isExplicitNoAnswer(`如有疑问${esc}客服`)).toBe(false);
  });

  it.each([[''], ['   '], [null], [undefined], ['找到了：请重启控制柜'], ['未 找到']])('%p is not a no-answer', (answer) => {
    expect(isExplicitNoAnswer(answer)).toBe(false);
  });
});

describe('hasImageMedia', () => {
  it.each([
    [[{ type: 'image' }], true],
    [[{ type: ' Image ' }], true],
    [[{ type: 'IMAGE' }], true],
    [[{ type: 'images' }], false],
    [[{ type: 'img' }], false],
    [[], false],
    [null, false],
  ])('%j → %p', (media, expected) => {
    expect(hasImageMedia(media)).toBe(expected);
  });
});

describe('verdictOf', () => {
  it.each(COVERAGE_REASON_CODES.map((c) => [c]))('%s maps to the verdict its prefix names', (code) => {
    expect(verdictOf(code)).toBe(code.startsWith('covered') ? 'covered' : 'uncovered');
  });
});
