import 'reflect-metadata';
import { describe, expect, it } from '@jest/globals';
import { createValidationPipe, InvalidRequestException } from '@arbiter/common';
import { CreateIntentRuleDto, UpdateIntentRuleDto } from './intent-rule.dto.js';

const pipe = createValidationPipe();
const check = (metatype: typeof CreateIntentRuleDto | typeof UpdateIntentRuleDto, value: unknown): Promise<unknown> =>
  pipe.transform(value, { type: 'body', metatype });
async function rejectedFields(metatype: typeof CreateIntentRuleDto | typeof UpdateIntentRuleDto, value: unknown): Promise<string[]> {
  const error = await check(metatype, value).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(InvalidRequestException);
  return (error as InvalidRequestException).details.fields;
}

describe('intent rule bodies: the PATCH body is a mapped type of the rule fields', () => {
  it.each([
    ['an empty patch', {}],
    ['one field', { priority: 3 }],
    ['null clears description, reply and vector', { description: null, reply: null, intentVector: null }],
    ['a new intent name', { intent: '售后' }],
  ])('PATCH accepts %s', async (_name, body) => {
    await expect(check(UpdateIntentRuleDto, body)).resolves.toBeInstanceOf(UpdateIntentRuleDto);
  });

  it.each([
    ['a blank intent', { intent: '   ' }, 'intent'],
    ['a priority that is not an integer', { priority: 'high' }, 'priority'],
    ['an unknown action', { action: 'escalate' }, 'action'],
    ['an empty keyword', { keywords: [''] }, 'keywords'],
    ['an unknown field', { colour: 'red' }, 'colour'],
  ])('PATCH refuses %s, naming the field', async (_name, body, field) => {
    expect(await rejectedFields(UpdateIntentRuleDto, body)).toContain(field);
  });

  it('POST still requires the intent and validates like PATCH', async () => {
    expect(await rejectedFields(CreateIntentRuleDto, { keywords: ['报警'] })).toContain('intent');
    expect(await rejectedFields(CreateIntentRuleDto, { intent: '故障', priority: 'high' })).toContain('priority');
    await expect(check(CreateIntentRuleDto, { intent: '故障', keywords: ['报警'], description: null })).resolves.toBeInstanceOf(CreateIntentRuleDto);
  });
});
