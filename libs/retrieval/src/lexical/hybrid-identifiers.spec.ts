import { describe, expect, it } from '@jest/globals';
import { DEFAULT_RETRIEVAL_NORMALIZATION } from '../relevance.js';
import { bm25Idf } from './bm25.js';
import { gradeCalibrated } from './calibration.js';
import { DEFAULT_CALIBRATION } from './default-calibration.js';
import { DEFAULT_FUSION } from './fusion-settings.js';
import { assembleCandidates, type HitChunk, type HybridInput } from './hybrid.js';
import { analyzeText } from './text-analyzer.js';

/**
 * The exact-identifier rule inside candidate assembly (docs/retrieval.md "Exact identifiers"): the
 * candidates are built from lexical hits alone, as for a knowledge base of `N` chunks whose document
 * frequencies are given, so every row shows what the rule does to the order and the grade.
 */
const N = 200;
const doc = (id: string, title: string, content: string, keywords: string[] = []): HitChunk => ({
  documentId: id,
  filePath: `${id}.md`,
  title,
  domain: 'd',
  content,
  distance: 1.4,
  keywords,
});

function run(query: string, hits: { hit: HitChunk; score: number }[], df: Record<string, number>) {
  const terms = [...new Set(analyzeText(query))];
  const idf = Object.fromEntries(terms.filter((t) => df[t] !== undefined).map((t) => [t, bm25Idf(df[t], N)]));
  const input: HybridInput = {
    query,
    vector: [],
    lexical: hits.map(({ hit, score }) => ({ ...hit, score })),
    exact: [],
    queryTerms: terms,
    idf,
    chunkCount: N,
    fusion: DEFAULT_FUSION,
    calibration: DEFAULT_CALIBRATION,
    normalization: DEFAULT_RETRIEVAL_NORMALIZATION,
  };
  const candidates = assembleCandidates(input);
  const top = candidates[0];
  const grade = gradeCalibrated({ relevance: top.relevance, exactHit: top.source === 'L0' }, DEFAULT_RETRIEVAL_NORMALIZATION);
  return { candidates, grade: `${grade.relevanceLevel}${grade.completenessHint ? `/${grade.completenessHint}` : ''}` };
}

const e201 = doc('e201', 'E201 伺服过流报警', 'E201 表示伺服驱动器检测到电流超过额定值。处理步骤：检查负载。');
const notes = doc('notes', 'Firmware 2.3 release notes', 'Fixes: E201 false alarms after long idle periods.');
const overcurrent = doc('guide', '伺服报警处理指南', '伺服过流报警时先检查负载和电缆，处理步骤见各报警文章。');
const part = doc('rv40e', '减速机选型', '本机使用 RV-40E 减速机，额定扭矩 412 N·m。', ['RV-40E']);
const grease = doc('grease', '润滑脂说明', '润滑脂 RG-2 适用于 RV-40E 等减速机，加注量见保养周期。');
const apt = doc('apt', 'Managing packages with apt-get', 'apt-get install, apt-get remove and apt-get purge change the installed packages.');

describe('exact identifiers in candidate assembly (table)', () => {
  const table: {
    name: string;
    query: string;
    hits: { hit: HitChunk; score: number }[];
    df: Record<string, number>;
    top: string;
    grade: string;
    verdicts: Record<string, string>;
  }[] = [
    {
      name: 'an alarm code in a title with the rest of the question covered: first and PRECISE',
      query: 'E201 报警怎么处理',
      hits: [
        { hit: overcurrent, score: 6 },
        { hit: e201, score: 5 },
      ],
      df: { e201: 2, 报警: 30, 处理: 40, '~报警': 30, '~处理': 40 },
      top: 'e201',
      grade: 'PRECISE',
      verdicts: { e201: 'promote', guide: 'none' },
    },
    {
      name: 'the code alone: the document titled with it is PRECISE, one that only cites it is not promoted',
      query: 'E201',
      hits: [
        { hit: notes, score: 5 },
        { hit: e201, score: 5 },
      ],
      df: { e201: 2 },
      top: 'e201',
      grade: 'PRECISE',
      verdicts: { e201: 'promote', notes: 'none' },
    },
    {
      name: 'a wrong document sharing only the code is capped below highly relevant',
      query: 'E201 固件升级后示教器黑屏',
      hits: [{ hit: e201, score: 9 }],
      df: {
        e201: 2,
        固件: 5,
        升级: 6,
        示教器: 8,
        黑屏: 2,
        '~固件': 5,
        '~件升': 5,
        '~升级': 6,
        '~级后': 3,
        '~后示': 1,
        '~示教': 8,
        '~教器': 8,
        '~器黑': 1,
        '~黑屏': 2,
      },
      top: 'e201',
      grade: 'REFERENCE/INSUFFICIENT',
      verdicts: { e201: 'cap' },
    },
    {
      name: 'a part number in a keyword beats a document that only mentions it',
      query: 'RV-40E 减速机额定扭矩',
      hits: [
        { hit: grease, score: 8 },
        { hit: part, score: 7 },
      ],
      df: { rv: 2, '40e': 2, 减速机: 10, 减速: 10, 额定: 5, 扭矩: 2, '~减速': 10, '~速机': 10, '~机额': 1, '~额定': 5, '~定扭': 1, '~扭矩': 2 },
      top: 'rv40e',
      grade: 'PRECISE',
      verdicts: { rv40e: 'promote', grease: 'cap' },
    },
    {
      name: 'a command in the title',
      query: 'how to remove a package with apt-get',
      hits: [{ hit: apt, score: 7 }],
      df: { apt: 2, get: 2, remov: 12, packag: 15 },
      top: 'apt',
      grade: 'PRECISE',
      verdicts: { apt: 'promote' },
    },
    {
      name: 'a common code (held by many chunks) is not an identifier to trust',
      query: 'E201 报警怎么处理',
      hits: [
        { hit: overcurrent, score: 9 },
        { hit: e201, score: 4 },
      ],
      df: { e201: 40, 报警: 30, 处理: 40, '~报警': 30, '~处理': 40 },
      top: 'guide',
      grade: '',
      verdicts: { e201: 'none', guide: 'none' },
    },
  ];

  it.each(table)('$name', ({ query, hits, df, top, grade, verdicts }) => {
    const out = run(query, hits, df);
    expect(out.candidates[0].documentId).toBe(top);
    if (grade) expect(out.grade).toBe(grade);
    for (const [id, verdict] of Object.entries(verdicts)) expect(out.candidates.find((c) => c.documentId === id)?.identifier).toBe(verdict);
  });
});
