import { describe, expect, it } from '@jest/globals';
import { cosineSimilarity, l2Norm } from '../vector-math.js';
import { EmptyEmbeddingTextError, LocalEmbedder } from './local-embedder.js';

describe('LocalEmbedder', () => {
  const embedder = new LocalEmbedder();

  it.each([
    ['Chinese', '机械臂在运行中突然停止，示教器显示伺服报警 E102'],
    ['English', 'The robot arm stopped suddenly and the teach pendant shows servo alarm E102'],
    ['mixed', '机械臂 robot arm 报警 E102, how do I reset it?'],
    ['single character', '臂'],
    ['punctuation only', '?!'],
    ['emoji', '🤖'],
  ])('returns a %s vector of the configured dimension with |norm - 1| < 0.01', (_label, text) => {
    const v = embedder.embed(text);
    expect(v).toHaveLength(384);
    expect(Math.abs(l2Norm(v) - 1)).toBeLessThan(0.01);
    expect(v.every(Number.isFinite)).toBe(true);
  });

  it('honours EMBEDDING_DIMENSION and names it in its id', () => {
    const small = new LocalEmbedder({ dimension: 64 });
    expect(small.embed('hello world')).toHaveLength(64);
    expect(small.id).toBe('local:hash-v2:64');
    expect(embedder.id).toBe('local:hash-v2:384');
    expect(() => new LocalEmbedder({ dimension: 4 })).toThrow(RangeError);
  });

  it('is deterministic across instances', () => {
    const text = '如何更换机械臂的减速机 gearbox';
    expect(new LocalEmbedder().embed(text)).toEqual(embedder.embed(text));
  });

  it('is case- and width-insensitive (NFKC + lower case)', () => {
    expect(embedder.embed('ＲＯＢＯＴ Arm')).toEqual(embedder.embed('robot arm'));
  });

  it.each([
    ['Chinese', '机械臂伺服电机过热报警怎么处理', '伺服电机温度过高导致机械臂报警', '今天公司食堂的午饭很好吃'],
    [
      'English',
      'how do I reset the robot arm after an emergency stop',
      'resetting the robot arm following an emergency stop',
      'what is my bank account balance today',
    ],
    ['mixed', '机械臂 servo alarm E102 怎么处理', 'E102 servo alarm 处理方法', '信用卡账单 payment due date'],
    ['morphology', 'calibrating the gripper', 'gripper calibration', 'weather forecast tomorrow'],
  ])('scores related %s texts above unrelated ones', (_label, query, related, unrelated) => {
    const q = embedder.embed(query);
    const rel = cosineSimilarity(q, embedder.embed(related));
    const unrel = cosineSimilarity(q, embedder.embed(unrelated));
    expect(rel).toBeGreaterThan(unrel + 0.15);
  });

  it('uses jieba words for Chinese (a word-level feature appears)', () => {
    const keys = [...embedder.features('机械臂报警').keys()].map((k) => k.split('\u0001')[1]);
    expect(keys).toEqual(expect.arrayContaining(['机械', '报警']));
  });

  it('applies sublinear term frequency (repetition does not dominate)', () => {
    const once = embedder.embed('alarm reset');
    const many = embedder.embed('alarm alarm alarm alarm alarm alarm alarm alarm reset');
    expect(cosineSimilarity(once, many)).toBeGreaterThan(0.6);
  });

  it.each([[''], ['   '], ['\n\t ']])('rejects blank text %j with a typed error', (text) => {
    expect(() => embedder.embed(text)).toThrow(EmptyEmbeddingTextError);
  });

  it('names the blank input in a batch', () => {
    expect(() => embedder.embedMany(['ok', ' '])).toThrow(/input #1/);
  });
});
