import { Injectable } from '@nestjs/common';
import type { TenantId } from '@arbiter/common';
import { runStepNow, type BackgroundStep } from '@arbiter/database';
import { IntentConfigService } from './intent-config.service.js';
import { IntentRouterCache } from './intent-router.cache.js';
import { pathsOf, SEMANTIC_AGGREGATIONS, type FitObservation, type IntentConfig, type LabelledExample, type SemanticAggregation } from './routing/index.js';

/** Work between two yields to the event loop while routing a labelled set (as the evaluation does). */
const FIT_SLICE_MS = 10;
/** A fit records what the semantic path finds; a busy machine must not turn that into a timeout. */
const FIT_SEMANTIC_TIMEOUT_MS = 60_000;

export interface FitObservations {
  byAggregation: Map<SemanticAggregation, FitObservation[]>;
  /** The effective config the fit starts from, and its version (the If-Match for applying the proposal). */
  config: IntentConfig;
  configVersion: string;
}

/**
 * Routes labelled messages with the tenant's own router once per semantic aggregation, judge off and
 * no threshold, and records their paths (docs/learning.md "Fit"). No side effects: nothing is logged,
 * no session or decision is written. Waits for the tenant's classifier so `classifier` is the real one.
 */
@Injectable()
export class IntentFitObserver {
  constructor(
    private readonly cache: IntentRouterCache,
    private readonly configs: IntentConfigService,
  ) {}

  async observe(
    tenantId: TenantId,
    examples: readonly LabelledExample[],
    onAggregationDone?: (done: number, total: number) => Promise<void>,
    step: BackgroundStep = runStepNow,
  ): Promise<FitObservations> {
    const { config, version } = await step(() => this.configs.versioned(tenantId));
    const routing = await step(() => this.cache.get(tenantId));
    await routing.trained;
    const byAggregation = new Map<SemanticAggregation, FitObservation[]>();
    let sliceStart = performance.now();
    for (const [i, aggregation] of SEMANTIC_AGGREGATIONS.entries()) {
      const cfg: IntentConfig = {
        ...config,
        llmJudgeEnabled: false,
        semanticAggregation: aggregation,
        minTriggerThreshold: 0,
        semanticMatcherTimeoutMs: Math.max(config.semanticMatcherTimeoutMs, FIT_SEMANTIC_TIMEOUT_MS),
        calibration: null,
      };
      const observed: FitObservation[] = [];
      for (const ex of examples) {
        observed.push({ expected: ex.intent, paths: pathsOf(await routing.router.route(ex.text, cfg)) });
        if (performance.now() - sliceStart >= FIT_SLICE_MS) {
          await new Promise((resolve) => setImmediate(resolve));
          sliceStart = performance.now();
        }
      }
      byAggregation.set(aggregation, observed);
      await onAggregationDone?.(i + 1, SEMANTIC_AGGREGATIONS.length);
    }
    return { byAggregation, config, configVersion: version };
  }
}
