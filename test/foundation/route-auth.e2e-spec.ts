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

  it('finds an @Auth decision on every route of every controller', () => {
    const controllers = [...t.app.get(ModulesContainer).values()].flatMap((m) => [...m.controllers.values()]);
    const scanner = new MetadataScanner();
    const reflector = t.app.get(Reflector);
    const routes: string[] = [];
    const missing: string[] = [];
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
        const route = `${method} /${base}/${path}`.replace(/\/+/g, '/').replace(/\/$/, '');
        routes.push(route);
        const decision = reflector.getAllAndOverride<string | undefined>(AUTH_REQUIREMENT, [handler, wrapper.metatype as Type]);
        if (!decision) missing.push(route);
      }
    }
    expect(routes.length).toBeGreaterThanOrEqual(6);
    expect(routes).toEqual(expect.arrayContaining(['POST /admin/tenants', 'POST /api/sessions', 'GET /health', 'GET /metrics']));
    expect(missing).toEqual([]);
  });
});
