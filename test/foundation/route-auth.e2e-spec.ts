import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { RequestMethod, type Type } from '@nestjs/common';
import { MetadataScanner, ModulesContainer, Reflector } from '@nestjs/core';
import { PATH_METADATA, METHOD_METADATA } from '@nestjs/common/constants.js';
import { AUTH_REQUIREMENT } from '@arbiter/tenancy';
import { createTestApp, type TestApp } from '../support/test-app.js';

/** Every HTTP route must carry an explicit @Auth decision (the guard also refuses routes without one). */
describe('route auth scan', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  /** Every route with its method, path and auth decision, from the controllers' metadata. */
  function scanRoutes(): { route: string; method: string; path: string; decision: string | undefined }[] {
    const controllers = [...t.app.get(ModulesContainer).values()].flatMap((m) => [...m.controllers.values()]);
    const scanner = new MetadataScanner();
    const reflector = t.app.get(Reflector);
    const found: { route: string; method: string; path: string; decision: string | undefined }[] = [];
    for (const wrapper of controllers) {
      const instance = wrapper.instance as object | undefined;
      if (!instance) continue;
      const prototype = Object.getPrototypeOf(instance) as object;
      const base = String(Reflect.getMetadata(PATH_METADATA, wrapper.metatype as object) ?? '');
      for (const methodName of scanner.getAllMethodNames(prototype)) {
        const handler = (prototype as Record<string, unknown>)[methodName] as () => unknown;
        const path = Reflect.getMetadata(PATH_METADATA, handler) as string | undefined;
        if (path === undefined) continue;
        const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as number];
        const url = `/${base}/${path}`.replace(/\/+/g, '/').replace(/(.)\/$/, '$1');
        const decision = reflector.getAllAndOverride<string | undefined>(AUTH_REQUIREMENT, [handler, wrapper.metatype as Type]);
        found.push({ route: `${method} ${url}`, method, path: url, decision });
      }
    }
    return found;
  }

  it('finds an @Auth decision on every route of every controller', () => {
    const scanned = scanRoutes();
    const routes = scanned.map((r) => r.route);
    const missing = scanned.filter((r) => !r.decision).map((r) => r.route);
    expect(routes.length).toBeGreaterThanOrEqual(6);
    expect(routes).toEqual(expect.arrayContaining(['POST /admin/tenants', 'POST /api/sessions', 'GET /health', 'GET /metrics']));
    expect(missing).toEqual([]);
  });

  it('authenticates every non-public route before its body is parsed (a malformed body without credentials is 401, not 400)', async () => {
    const guarded = scanRoutes().filter((r) => r.decision !== 'public' && ['POST', 'PUT', 'PATCH', 'DELETE'].includes(r.method));
    expect(guarded.length).toBeGreaterThanOrEqual(20);
    const answers: string[] = [];
    for (const r of guarded) {
      const url = r.path.replace(/:[A-Za-z]+/g, '00000000-0000-4000-8000-000000000000');
      const res = await t.request({ method: r.method as 'POST', url, headers: { 'content-type': 'application/json' }, payload: '{"malformed' });
      answers.push(`${r.route} ${res.statusCode}`);
    }
    expect(answers).toEqual(guarded.map((r) => `${r.route} 401`));
  });
});
