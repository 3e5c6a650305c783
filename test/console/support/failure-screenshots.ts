import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { it as jestIt } from '@jest/globals';
import type { Page } from 'playwright-core';

const SCREENSHOTS = path.resolve('test/console/screenshots');

/**
 * jest's `it` for a browser spec: when a test fails, the page it was driving (`activePage()`) is saved as
 * test/console/screenshots/<prefix><test name>.png before the failure is reported (docs/console.md "Tests").
 */
export function itSavingScreenshots(prefix: string, activePage: () => Page | null): (name: string, test: () => Promise<void>) => void {
  return (name, test) =>
    jestIt(name, async () => {
      try {
        await test();
      } catch (error) {
        mkdirSync(SCREENSHOTS, { recursive: true });
        const file = path.join(SCREENSHOTS, `${prefix}${name.replace(/[^\w.-]+/g, '_').slice(0, 110)}.png`);
        await activePage()
          ?.screenshot({ path: file, fullPage: true })
          .catch(() => undefined);
        throw error;
      }
    });
}
