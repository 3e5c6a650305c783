import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { asTenantId } from '@arbiter/common';
import type { EmbeddingProvider, LlmService } from '@arbiter/llm';
import { INTENT_RULE_SET_RECHECK_MS, IntentRouterCache } from './intent-router.cache.js';
import type { IntentMetrics } from './intent.metrics.js';
import type { IntentRepository, StoredIntentRule } from './intent.repository.js';
import type { PatternRef, RuleSetCheck } from './routing/index.js';
import { RuleSetChecker, type RuleSetCheckRunner } from './rule-check/rule-set-checker.js';

const TENANT = 'tenant-1';

const storedRule: StoredIntentRule = {
  id: 'rule-1',
  tenantId: TENANT,
  intent: 'order',
  description: null,
  keywords: ['order'],
  patterns: ['order\\s*#?(\\d{4,})'],
  semanticExamples: [],
  intentVector: null,
  priority: 0,
  enabled: true,
  reply: null,
  action: 'knowledge',
  confidenceProfile: 'search',
  createdAt: new Date(0),
  updatedAt: new Date(0),
};

/** The repository calls a router build makes, for one tenant at rules version 1. */
const repository = {
  versions: (ids: string[]) => Promise.resolve(new Map(ids.map((id) => [id, { rules: '1', config: '0' }]))),
  getOverrides: () => Promise.resolve({}),
  all: () => Promise.resolve([storedRule]),
  embeddings: () => Promise.resolve(new Map()),
};
const metrics = { routerLoaded: () => undefined, classifierTraining: () => undefined };
const provider = { id: 'local:test', dimension: 8, embedQuery: () => Promise.resolve([]), embedDocuments: () => Promise.resolve([]) };

/** First check: never answers (the time limit ends it); later checks: `ok` at once. */
class SlowThenFastRunner implements RuleSetCheckRunner {
  calls = 0;
  private hung: ((e: Error) => void) | null = null;
  run(_patterns: PatternRef[], _maxMem: number, started: () => void): Promise<RuleSetCheck> {
    this.calls++;
    started();
    if (this.calls === 1) return new Promise((_resolve, reject) => (this.hung = reject));
    return Promise.resolve({ status: 'ok', invalid: [] });
  }
  terminate(): Promise<void> {
    this.hung?.(new Error('terminated'));
    this.hung = null;
    return Promise.resolve();
  }
}

describe('IntentRouterCache: a serve-time check that times out', () => {
  afterEach(() => {
    jest.useRealTimers();
  });

  it('serves without the regex stage (not a failure), never re-checks per request, and re-checks once after the interval', async () => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask', 'performance'] });
    const runner = new SlowThenFastRunner();
    class TestCache extends IntentRouterCache {
      override readonly ruleSets = new RuleSetChecker({ runner, timeoutMs: 50 });
    }
    const cache = new TestCache(
      repository as unknown as IntentRepository,
      { enabled: false } as unknown as LlmService,
      metrics as unknown as IntentMetrics,
      provider as unknown as EmbeddingProvider,
    );
    try {
      const first = cache.get(asTenantId(TENANT));
      await jest.advanceTimersByTimeAsync(50);
      const degraded = await first;
      expect(degraded.router.ruleMatcher.regexDisabled).toContain('time limit');
      expect(degraded.router.ruleMatcher.match('my order')?.matchType).toBe('keyword');
      for (let i = 0; i < 5; i++) await cache.get(asTenantId(TENANT));
      expect(runner.calls).toBe(1);

      await jest.advanceTimersByTimeAsync(INTENT_RULE_SET_RECHECK_MS);
      for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r));
      const recovered = await cache.get(asTenantId(TENANT));
      expect(runner.calls).toBe(2);
      expect(recovered.router.ruleMatcher.regexDisabled).toBeNull();
      expect(recovered.router.ruleMatcher.match('order #12345')?.matchType).toBe('regex');
      // A passing check is cached: no further checks.
      await jest.advanceTimersByTimeAsync(INTENT_RULE_SET_RECHECK_MS);
      expect(runner.calls).toBe(2);
    } finally {
      await cache.onModuleDestroy();
    }
  });
});
