import ExcelJS from 'exceljs';
import Papa from 'papaparse';
import type { ExtractedDocument, FaqRow } from '../document.types.js';
import { ExtractionError, ExtractionErrorCode } from '../extraction-error.js';
import { decodeText } from './text.js';

/**
 * FAQ sheets (docs/documents.md "FAQ sheets"): CSV (papaparse; encodings as for text) or the first
 * worksheet of an XLSX (exceljs). The first row is the header; its question, answer and optional
 * similar-questions columns are recognised in English and Chinese. One FaqRow per row with a question
 * and an answer.
 */

type Column = 'question' | 'answer' | 'similar';

/** Header names, compared after lower-casing and dropping spaces, `_`, `-` and a trailing `(s)`/`s`. */
const HEADERS: Readonly<Record<Column, readonly string[]>> = {
  question: ['question', 'questions', 'q', '问题', '标准问题', '标准问', '问'],
  answer: ['answer', 'answers', 'a', '答案', '回答', '标准答案', '答'],
  similar: [
    'similarquestions',
    'similarquestion',
    'similar',
    'alternatequestions',
    'alternativequestions',
    'variants',
    'paraphrases',
    '相似问题',
    '相似问法',
    '相似问',
    '相似问句',
    '扩展问题',
  ],
};

const SIMILAR_SEPARATORS = /[,，、；;|｜\n]+/;

function columnOf(header: string): Column | null {
  const key = header.toLowerCase().replace(/[\s_\-()（）]+/g, '');
  if (HEADERS.question.includes(key)) return 'question';
  if (HEADERS.answer.includes(key)) return 'answer';
  if (HEADERS.similar.includes(key)) return 'similar';
  return null;
}

/** Rows of cell strings (header first) → FAQ rows. Exported for tests. */
export function rowsToFaq(rows: string[][]): FaqRow[] {
  const header = rows[0] ?? [];
  const index: Partial<Record<Column, number>> = {};
  header.forEach((h, i) => {
    const column = columnOf(h);
    if (column !== null && index[column] === undefined) index[column] = i;
  });
  const q = index.question;
  const a = index.answer;
  if (q === undefined || a === undefined) {
    throw new ExtractionError(
      ExtractionErrorCode.SheetNoQuestionAnswer,
      'The sheet has no question and answer columns in its first row (e.g. "question"/"answer" or "问题"/"答案").',
    );
  }
  const s = index.similar;
  const faq: FaqRow[] = [];
  rows.slice(1).forEach((cells, i) => {
    const question = (cells[q] ?? '').trim();
    const answer = (cells[a] ?? '').trim();
    if (question === '' || answer === '') return;
    const similar =
      s === undefined
        ? []
        : (cells[s] ?? '')
            .split(SIMILAR_SEPARATORS)
            .map((x) => x.trim())
            .filter((x) => x !== '');
    faq.push({ row: i + 2, question, answer, similar });
  });
  return faq;
}

export function extractCsv(bytes: Uint8Array, mediaType: string): ExtractedDocument {
  const text = decodeText(bytes);
  // papaparse guesses the delimiter (comma, tab, semicolon…) and handles quoted newlines.
  const parsed = Papa.parse<string[]>(text, { skipEmptyLines: 'greedy' });
  return { kind: 'csv', mediaType, title: null, blocks: [], faqRows: rowsToFaq(parsed.data), warnings: [] };
}

function cellText(cell: ExcelJS.Cell): string {
  // cell.text renders rich text, formulas' results, hyperlinks and dates as shown in the sheet.
  return cell.text ?? '';
}

export async function extractXlsx(bytes: Uint8Array, mediaType: string): Promise<ExtractedDocument> {
  const workbook = new ExcelJS.Workbook();
  try {
    // exceljs declares its own `Buffer extends ArrayBuffer`; a fresh ArrayBuffer copy of the bytes is one (and JSZip reads it).
    await workbook.xlsx.load(bytes.slice().buffer);
  } catch {
    throw new ExtractionError(ExtractionErrorCode.SheetInvalid, 'The spreadsheet is not a readable XLSX file.');
  }
  const sheet = workbook.worksheets[0];
  const rows: string[][] = [];
  if (sheet !== undefined) {
    const width = sheet.columnCount;
    for (let r = 1; r <= sheet.rowCount; r++) {
      const row = sheet.getRow(r);
      rows.push(Array.from({ length: width }, (_, c) => cellText(row.getCell(c + 1))));
    }
  }
  return { kind: 'xlsx', mediaType, title: null, blocks: [], faqRows: rowsToFaq(rows), warnings: [] };
}
