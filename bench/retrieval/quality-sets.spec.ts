import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { covidFaq, isRight, type FaqSet } from './quality-sets.js';

const faq = (answer: string, question: string) => ({ label: 1, query_type: 'faq', question, answer, id: question });
const asked = (answer: string, question: string) => ({ label: 1, query_type: 'user_query', question, answer, id: question });

describe('covidFaq', () => {
  let dir: string;
  let set: FaqSet;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'covidfaq-'));
    const file = path.join(dir, 'covidfaq.json');
    writeFileSync(
      file,
      JSON.stringify([
        faq('A1', 'What is it?'),
        faq('A2', 'Symptoms?'),
        faq('A2', 'What are the symptoms?'),
        faq('A3', 'Masks?'),
        faq('A4', 'Tests?'),
        faq('A5', 'Left out?'),
        asked('A2', 'symptoms of it'),
        asked('A3', 'Symptoms  OF it '),
        asked('A5', 'only the left-out one'),
        asked('A5', 'both kinds'),
        asked('A1', 'both kinds'),
        asked('A4', 'where to test'),
      ]),
    );
    process.env.BENCH_COVIDFAQ = file;
    set = covidFaq() as FaqSet;
  });
  afterAll(() => {
    delete process.env.BENCH_COVIDFAQ;
    rmSync(dir, { recursive: true, force: true });
  });

  it('makes one document per distinct answer, its FAQ questions first, and leaves every fifth answer out', () => {
    expect(set.documents.map((d) => d.label)).toEqual(['covid-1', 'covid-2', 'covid-3', 'covid-4']);
    expect(set.documents[1]).toMatchObject({ title: 'Symptoms?', content: 'Symptoms?\nWhat are the symptoms?\n\nA2' });
    expect(set.defaultsChosenOn).toBe(false);
  });

  it('asks a query typed twice once, right with any of its answers, and splits the queries alternately', () => {
    expect(set.questions).toEqual([
      { text: 'symptoms of it', label: 'covid-2', alsoRight: ['covid-3'], answerable: true, split: 'fit' },
      { text: 'only the left-out one', label: 'covid-5', answerable: false, split: 'test' },
      { text: 'both kinds', label: 'covid-1', answerable: true, split: 'fit' },
      { text: 'where to test', label: 'covid-4', answerable: true, split: 'test' },
    ]);
    expect([isRight(set.questions[0], 'covid-3'), isRight(set.questions[0], 'covid-2'), isRight(set.questions[0], 'covid-1')]).toEqual([true, true, false]);
  });

  it('is skipped when its file is absent', () => {
    process.env.BENCH_COVIDFAQ = path.join(dir, 'absent.json');
    expect(covidFaq()).toBeNull();
  });
});
