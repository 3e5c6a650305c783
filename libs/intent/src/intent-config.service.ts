import { Injectable } from '@nestjs/common';
import type { TenantId } from '@arbiter/common';
import { IntentErrorCode, IntentException } from './intent.exception.js';
import { IntentRepository } from './intent.repository.js';
import { IntentRouterCache } from './intent-router.cache.js';
import {
  DEFAULT_INTENT_CONFIG,
  mergeIntentConfig,
  validateIntentConfig,
  type ConfigValidationError,
  type IntentConfig,
  type IntentConfigOverride,
} from './routing/index.js';

/** Stored override ⊕ a new partial one (weights merge per key). */
export function mergeOverrides(current: IntentConfigOverride, patch: IntentConfigOverride): IntentConfigOverride {
  const merged: IntentConfigOverride = { ...current, ...patch };
  if (current.weights !== undefined || patch.weights !== undefined) merged.weights = { ...current.weights, ...patch.weights };
  return merged;
}

export function configErrorDetails(errors: ConfigValidationError[]): { fields: string[]; errors: ConfigValidationError[] } {
  return { fields: [...new Set(errors.map((e) => e.field))], errors };
}

/** The tenant's routing config: defaults (docs/spec/intent-routing.md) overlaid with its validated override. */
@Injectable()
export class IntentConfigService {
  constructor(
    private readonly repository: IntentRepository,
    private readonly cache: IntentRouterCache,
  ) {}

  async effective(tenantId: TenantId): Promise<IntentConfig> {
    return mergeIntentConfig(DEFAULT_INTENT_CONFIG, await this.repository.getOverrides(tenantId));
  }

  /** Validates a partial override against the current effective config, merges and stores it. */
  async update(tenantId: TenantId, body: unknown): Promise<IntentConfig> {
    const current = await this.repository.getOverrides(tenantId);
    const base = mergeIntentConfig(DEFAULT_INTENT_CONFIG, current);
    const checked = validateIntentConfig(body, base);
    if (!checked.ok) {
      throw new IntentException(
        IntentErrorCode.INVALID_CONFIG,
        checked.errors.map((e) => (e.field !== '' ? `${e.field}: ${e.message}` : e.message)).join('; '),
        configErrorDetails(checked.errors),
      );
    }
    const next = mergeOverrides(current, checked.value);
    await this.repository.putOverrides(tenantId, next);
    this.cache.invalidate(tenantId, 'config');
    return mergeIntentConfig(DEFAULT_INTENT_CONFIG, next);
  }

  /** A config to evaluate with (not saved): the effective one with `patch` applied, validated. */
  resolve(base: IntentConfig, patch: unknown): IntentConfig {
    const checked = validateIntentConfig(patch, base);
    if (!checked.ok) {
      throw new IntentException(
        IntentErrorCode.INVALID_CONFIG,
        checked.errors.map((e) => (e.field !== '' ? `config.${e.field}: ${e.message}` : e.message)).join('; '),
        configErrorDetails(checked.errors.map((e) => ({ ...e, field: e.field !== '' ? `config.${e.field}` : 'config' }))),
      );
    }
    return mergeIntentConfig(base, checked.value);
  }
}
