import { expect } from '@jest/globals';
import type { Locator } from 'playwright-core';

// playwright-core has no auto-waiting assertions (those live in @playwright/test): these poll the page until the
// condition holds or the time is up, then let jest report what was last seen.
const TIMEOUT_MS = 15_000;

async function poll<T>(read: () => Promise<T>, ok: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + TIMEOUT_MS;
  let value = await read();
  while (!ok(value) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    value = await read();
  }
  return value;
}

const texts = async (locator: Locator) => (await locator.allInnerTexts()).join('\n');

/** Some element of the locator shows the text (or matches the pattern). */
export async function containsText(locator: Locator, expected: string | RegExp): Promise<void> {
  const matches = (text: string) => (typeof expected === 'string' ? text.includes(expected) : expected.test(text));
  const seen = await poll(() => texts(locator), matches);
  if (typeof expected === 'string') expect(seen).toContain(expected);
  else expect(seen).toMatch(expected);
}

export async function visible(locator: Locator): Promise<void> {
  await locator.first().waitFor({ state: 'visible', timeout: TIMEOUT_MS });
}

export async function hasValue(locator: Locator, expected: string): Promise<void> {
  expect(
    await poll(
      () => locator.inputValue(),
      (value) => value === expected,
    ),
  ).toBe(expected);
}

export async function hasCount(locator: Locator, expected: number): Promise<void> {
  expect(
    await poll(
      () => locator.count(),
      (count) => count === expected,
    ),
  ).toBe(expected);
}
