import { CoverageErrorCode, CoverageException } from '../coverage.exception.js';
import { CoverageEvaluatorV1 } from './coverage-evaluator.v1.js';
import type { CoverageEvaluator } from './coverage.types.js';

/** Every evaluator the product ships. Adding `v2` = one new class, listed here. */
export function builtInCoverageEvaluators(): CoverageEvaluator[] {
  return [new CoverageEvaluatorV1()];
}

export const DEFAULT_COVERAGE_EVALUATOR_VERSION = CoverageEvaluatorV1.VERSION;

/**
 * Version → evaluator. The current version comes from configuration and must be registered (checked
 * at construction, so a misconfigured process fails at boot); asking for an unknown version is a
 * typed 400 (`UNKNOWN_EVALUATOR_VERSION`).
 */
export class CoverageEvaluatorRegistry {
  private readonly byVersion: ReadonlyMap<string, CoverageEvaluator>;
  readonly currentVersion: string;

  constructor(evaluators: readonly CoverageEvaluator[] = builtInCoverageEvaluators(), currentVersion: string = DEFAULT_COVERAGE_EVALUATOR_VERSION) {
    const byVersion = new Map<string, CoverageEvaluator>();
    for (const evaluator of evaluators) {
      if (byVersion.has(evaluator.version)) {
        throw new CoverageException(CoverageErrorCode.DuplicateEvaluatorVersion, evaluator.version);
      }
      byVersion.set(evaluator.version, evaluator);
    }
    this.byVersion = byVersion;
    this.currentVersion = currentVersion;
    this.get(currentVersion);
  }

  /** The evaluator of the configured current version. */
  current(): CoverageEvaluator {
    return this.get(this.currentVersion);
  }

  /** @throws CoverageException UNKNOWN_EVALUATOR_VERSION (400) naming the known versions. */
  get(version: string): CoverageEvaluator {
    const evaluator = this.byVersion.get(version);
    if (!evaluator) {
      throw new CoverageException(CoverageErrorCode.UnknownEvaluatorVersion, `"${version}" (known: ${this.versions().join(', ')})`, {
        evaluatorVersion: version,
        knownVersions: this.versions(),
      });
    }
    return evaluator;
  }

  has(version: string): boolean {
    return this.byVersion.has(version);
  }

  versions(): string[] {
    return [...this.byVersion.keys()].sort();
  }
}
