import { Injectable } from '@nestjs/common';
import type { TenantId } from '@arbiter/common';
import { AuditLog } from '@arbiter/tenancy';
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

/**
 * `If-Match` → a config version: `"3"`, `W/"3"` or `3`; absent or `*` → undefined (no precondition).
 * Anything else → 400 naming the header.
 */
/** A config override as a 400 (INVALID_CONFIG) names it; `base`: the config it lands on (null: the override alone). */
function checkConfig(patch: unknown, base: Readonly<IntentConfig> | null): IntentConfigOverride {
  const checked = validateIntentConfig(patch, base);
  if (checked.ok) return checked.value;
  throw new IntentException(
    IntentErrorCode.INVALID_CONFIG,
    checked.errors.map((e) => (e.field !== '' ? `${e.field}: ${e.message}` : e.message)).join('; '),
    configErrorDetails(checked.errors),
  );
}

/** The body of `PUT /admin/intent-config`: a partial override, checked on its own before the stored config is read. */
export function parseIntentConfigPatch(body: unknown): IntentConfigOverride {
  return checkConfig(body, null);
}

export function parseConfigVersion(header: string | undefined): string | undefined {
  if (header === undefined || header.trim() === '' || header.trim() === '*') return undefined;
  const match = /^(?:W\/)?"?(\d{1,18})"?$/.exec(header.trim());
  if (match === null)
    throw new IntentException(IntentErrorCode.INVALID_CONFIG, 'If-Match must name a config version, e.g. "3" (the ETag of GET /admin/intent-config)');
  return String(BigInt(match[1]));
}

/** The tenant's routing config: defaults (docs/spec/intent-routing.md) overlaid with its validated override. */
@Injectable()
export class IntentConfigService {
  constructor(
    private readonly repository: IntentRepository,
    private readonly cache: IntentRouterCache,
    private readonly audit: AuditLog,
  ) {}

  async effective(tenantId: TenantId): Promise<IntentConfig> {
    return mergeIntentConfig(DEFAULT_INTENT_CONFIG, await this.repository.getOverrides(tenantId));
  }

  /** The effective config and its version (the `ETag` of `GET /admin/intent-config`). */
  async versioned(tenantId: TenantId): Promise<{ config: IntentConfig; version: string }> {
    const state = await this.repository.getConfigState(tenantId);
    return { config: mergeIntentConfig(DEFAULT_INTENT_CONFIG, state.overrides), version: state.version };
  }

  /**
   * Validates a partial override against the current effective config, merges and stores it.
   * `ifMatch`: the version the caller saw (e.g. a fit's `configVersion`); a newer stored version → 412.
   * Without it, a concurrent edit between the read and the write is retried on the new state.
   */
  async update(tenantId: TenantId, patch: IntentConfigOverride, ifMatch?: string): Promise<{ config: IntentConfig; version: string }> {
    for (let attempt = 0; ; attempt++) {
      const state = await this.repository.getConfigState(tenantId);
      if (ifMatch !== undefined && ifMatch !== state.version) throw this.stale(ifMatch, state.version);
      const base = mergeIntentConfig(DEFAULT_INTENT_CONFIG, state.overrides);
      // The body's shape was checked by parseIntentConfigPatch; what is left depends on the stored config (the weights' sum).
      const checked = checkConfig(patch, base);
      const next = mergeOverrides(state.overrides, checked);
      const version = await this.repository.putOverrides(tenantId, next, state.version, (tx, newVersion) =>
        this.audit.record(tx, tenantId, {
          action: 'update',
          resourceType: 'intent_config',
          resourceId: newVersion,
          label: 'intent config',
          summary: { before: state.overrides, after: next, version: newVersion, ...(ifMatch !== undefined ? { ifMatch } : {}) },
        }),
      );
      if (version !== null) {
        this.cache.invalidate(tenantId, 'config');
        return { config: mergeIntentConfig(DEFAULT_INTENT_CONFIG, next), version };
      }
      if (ifMatch !== undefined || attempt >= 4) throw this.stale(ifMatch ?? state.version, (await this.repository.getConfigState(tenantId)).version);
    }
  }

  private stale(expected: string, current: string): IntentException {
    return new IntentException(
      IntentErrorCode.CONFIG_VERSION_MISMATCH,
      `If-Match names config version ${expected} but it is now ${current}: read it again (GET /admin/intent-config) and retry`,
      { expectedVersion: expected, currentVersion: current },
    );
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
