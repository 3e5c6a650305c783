import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { DataSource } from 'typeorm';
import { detectSchemaDrift } from '@arbiter/database';
import { newMediumTest, type MediumTest } from '@arbiter/testing';
import { INTENT_ENTITIES } from './index.js';

describe('intent schema (drift)', () => {
  let medium: MediumTest;
  let ds: DataSource;
  beforeAll(async () => {
    medium = await newMediumTest({ entities: INTENT_ENTITIES });
    ds = medium.dataSource;
  });
  afterAll(() => medium?.close());

  it('entities match migration 0010 exactly', async () => {
    expect(await detectSchemaDrift(ds)).toEqual([]);
  });
});
