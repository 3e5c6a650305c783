import { describe, expect, it } from '@jest/globals';
import { numberOf, pickClarification, wordsOf } from './clarify-pick.js';

/** The options of the chat e2e's clarifying question (rule descriptions as labels). */
const OPTIONS = [
  { intent: 'fault', label: '故障报警排查 / alarms and faults' },
  { intent: 'firmware', label: '固件升级 / firmware upgrade' },
  { intent: 'refund_request', label: null },
];

describe('pickClarification', () => {
  it.each([
    // by number: digits, full-width digits, zh numerals and ordinals, en numbers and ordinals, "last"
    ['2', 'firmware', 'number'],
    ['２', 'firmware', 'number'],
    ['2.', 'firmware', 'number'],
    ['#1', 'fault', 'number'],
    ['二', 'firmware', 'number'],
    ['第二个', 'firmware', 'number'],
    ['第2项', 'firmware', 'number'],
    ['选1', 'fault', 'number'],
    ['我选第三个吧', 'refund_request', 'number'],
    ['two', 'firmware', 'number'],
    ['The second one', 'firmware', 'number'],
    ['the 2nd', 'firmware', 'number'],
    ['Option 3', 'refund_request', 'number'],
    ['number one', 'fault', 'number'],
    ['first', 'fault', 'number'],
    ['last', 'refund_request', 'number'],
    ['最后一个', 'refund_request', 'number'],
    // by label: the whole label, one part of it, the intent name, a sentence naming one option
    ['固件升级 / firmware upgrade', 'firmware', 'label'],
    ['固件升级', 'firmware', 'label'],
    ['Alarms and faults', 'fault', 'label'],
    ['firmware', 'firmware', 'label'],
    ['refund request', 'refund_request', 'label'],
    ['REFUND_REQUEST', 'refund_request', 'label'],
    ['是固件升级的问题', 'firmware', 'label'],
    ['I mean the firmware upgrade', 'firmware', 'label'],
    // by paraphrase: most of the answer's words are one option's
    ['升级一下固件', 'firmware', 'paraphrase'],
    ['报警故障', 'fault', 'paraphrase'],
    ['an upgrade please', 'firmware', 'paraphrase'],
    ['I want a refund', 'refund_request', 'paraphrase'],
  ] as const)('%s → %s (by %s)', (answer, intent, by) => {
    expect(pickClarification(answer, OPTIONS)).toMatchObject({ kind: 'picked', intent, by });
  });

  it.each([
    ['4'], // out of range
    ['第五个'],
    ['0'],
    ['the weather tomorrow'],
    ['今天天气怎么样'],
    [''],
    ['？？'],
    ['都不是'],
    ['firmware or fault'], // names two options
  ])('%s picks nothing', (answer) => {
    expect(pickClarification(answer, OPTIONS)).toEqual({ kind: 'none' });
  });

  it('picks nothing from an empty list', () => {
    expect(pickClarification('1', [])).toEqual({ kind: 'none' });
  });

  it('uses the intent name when an option has no label', () => {
    expect(pickClarification('refund', [{ intent: 'refund' }, { intent: 'exchange' }])).toMatchObject({ kind: 'picked', index: 0, by: 'label' });
  });
});

describe('numberOf', () => {
  it.each([
    ['3', 5, 3],
    ['第十个', 12, 10],
    ['the last one', 4, 4],
    ['fifth', 5, 5],
    ['firmware', 3, null],
    ['2 more questions about it', 3, null],
  ] as const)('%s of %i → %s', (answer, count, expected) => {
    expect(numberOf(answer, count)).toBe(expected);
  });
});

describe('wordsOf', () => {
  it('splits English words and Chinese characters (stop words and function characters out)', () => {
    expect([...wordsOf('I want the firmware 升级一下固件吧')].sort()).toEqual(['firmware', '升', '级', '固', '件'].sort());
  });
});
