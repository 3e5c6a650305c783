import { describe, expect, it } from '@jest/globals';
import { CoverageErrorCode, CoverageException } from '../coverage.exception.js';
import { CoverageEvaluatorRegistry, DEFAULT_COVERAGE_EVALUATOR_VERSION } from './coverage-evaluator.registry.js';
import { CoverageEvaluatorV1 } from './coverage-evaluator.v1.js';
import type { CoverageDecision, CoverageEvaluator, CoverageInput } from './coverage.types.js';

/** What adding v2 looks like: one class. */
class FakeV2 implements CoverageEvaluator {
  readonly version = 'v2';
  evaluate(input: CoverageInput): CoverageDecision {
    return { ...new CoverageEvaluatorV1().evaluate(input), evaluatorVersion: this.version };
  }
}

function catchError(fn: () => unknown): CoverageException {
  try {
    fn();
  } catch (e) {
    if (e instanceof CoverageException) return e;
    throw e;
  }
  throw new Error('expected a CoverageException');
}

describe('CoverageEvaluatorRegistry', () => {
  it('defaults to the built-in evaluators with v1 current', () => {
    const registry = new CoverageEvaluatorRegistry();
    expect(DEFAULT_COVERAGE_EVALUATOR_VERSION).toBe('v1');
    expect(registry.currentVersion).toBe('v1');
    expect(registry.current()).toBeInstanceOf(CoverageEvaluatorV1);
    expect(registry.versions()).toEqual(['v1']);
  });

  it('resolves by version and lets configuration pick the current one', () => {
    const registry = new CoverageEvaluatorRegistry([new CoverageEvaluatorV1(), new FakeV2()], 'v2');
    expect(registry.current().version).toBe('v2');
    expect(registry.get('v1').version).toBe('v1');
    expect(registry.has('v2')).toBe(true);
    expect(registry.versions()).toEqual(['v1', 'v2']);
  });

  it.each(['v9', '', 'V1', ' v1'])('unknown version %p → UNKNOWN_EVALUATOR_VERSION (400) naming the known ones', (version) => {
    const error = catchError(() => new CoverageEvaluatorRegistry().get(version));
    expect(error).toMatchObject({ code: CoverageErrorCode.UnknownEvaluatorVersion, status: 400, details: { evaluatorVersion: version, knownVersions: ['v1'] } });
  });

  it('refuses a current version that is not registered (fails at boot)', () => {
    const error = catchError(() => new CoverageEvaluatorRegistry([new CoverageEvaluatorV1()], 'v2'));
    expect(error.code).toBe(CoverageErrorCode.UnknownEvaluatorVersion);
  });

  it('refuses two evaluators with one version', () => {
    const error = catchError(() => new CoverageEvaluatorRegistry([new CoverageEvaluatorV1(), new CoverageEvaluatorV1()]));
    expect(error.code).toBe(CoverageErrorCode.DuplicateEvaluatorVersion);
  });
});
