import { describe, expect, it } from '@jest/globals';
import { InvalidRequestException } from '@arbiter/common';
import { checkLabelledExamples, parseEvaluateBody } from './labelled-examples.js';

describe('checkLabelledExamples', () => {
  it.each([
    ['missing intent', { text: 'x' }, 'examples[0].intent', 'intent must be a string or null'],
    ['numeric intent', { text: 'x', intent: 5 }, 'examples[0].intent', 'intent must be a string or null'],
    ['long intent', { text: 'x', intent: 'i'.repeat(101) }, 'examples[0].intent', 'intent must be shorter than or equal to 100 characters'],
    ['blank text', { text: '  ', intent: 'a' }, 'examples[0].text', 'text must not be blank'],
    ['non-string text', { text: 3, intent: 'a' }, 'examples[0].text', 'text must be a string'],
    ['long text', { text: 'x'.repeat(4001), intent: 'a' }, 'examples[0].text', 'text must be shorter than or equal to 4000 characters'],
    ['unknown field', { text: 'x', intent: null, extra: 1 }, 'examples[0].extra', 'property extra should not exist'],
    ['not an object', 'x', 'examples[0]', 'each example must be an object {text, intent}'],
  ])('%s → 400 naming %s', (_name, item, field, message) => {
    const { errors } = checkLabelledExamples([item]);
    expect(errors).toEqual([{ field, errors: [message] }]);
  });

  it('accepts text with intent or null (out of scope)', () => {
    expect(
      checkLabelledExamples([
        { text: 'reset', intent: 'reset' },
        { text: 'weather', intent: null },
      ]),
    ).toEqual({
      examples: [
        { text: 'reset', intent: 'reset' },
        { text: 'weather', intent: null },
      ],
      errors: [],
    });
  });
});

describe('parseEvaluateBody', () => {
  it.each([
    ['no examples', {}, 'examples'],
    ['empty examples', { examples: [] }, 'examples'],
    ['too many examples', { examples: Array.from({ length: 5001 }, () => ({ text: 'x', intent: null })) }, 'examples'],
    ['unknown option', { examples: [{ text: 'x', intent: 'a' }], nope: 1 }, 'nope'],
    ['bad topConfusions', { examples: [{ text: 'x', intent: 'a' }], topConfusions: 0 }, 'topConfusions'],
    ['config not an object', { examples: [{ text: 'x', intent: 'a' }], config: 3 }, 'config'],
    ['bad example', { examples: [{ text: 'x' }] }, 'examples[0].intent'],
  ])('%s → 400 naming %s', (_name, body, field) => {
    let error: unknown;
    try {
      parseEvaluateBody(body);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InvalidRequestException);
    expect((error as InvalidRequestException).status).toBe(400);
    expect((error as InvalidRequestException).details.fields).toContain(field);
  });

  it('returns the examples and the options', () => {
    expect(parseEvaluateBody({ examples: [{ text: 'x', intent: null }], topConfusions: 3, config: { semanticThreshold: 0.5 } })).toEqual({
      examples: [{ text: 'x', intent: null }],
      topConfusions: 3,
      config: { semanticThreshold: 0.5 },
    });
  });
});
