import { offerDownload } from './download';

/**
 * RFC 4180 CSV: every field quoted when it holds a comma, quote or line break; a leading =, +, - or @ is prefixed
 * with ' so a spreadsheet does not run a user's question as a formula (CSV injection).
 */
export function toCsv(header: readonly string[], rows: readonly (readonly (string | number | null | undefined)[])[]): string {
  const field = (value: string | number | null | undefined): string => {
    if (value === null || value === undefined) return '';
    let text = String(value);
    if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
    return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  };
  return [header, ...rows].map((row) => row.map(field).join(',')).join('\r\n') + '\r\n';
}

/** Offers text as a file download; the BOM makes Excel read UTF-8 Chinese correctly. */
export function downloadText(fileName: string, text: string, type = 'text/csv;charset=utf-8'): void {
  offerDownload(fileName, new Blob(['\ufeff', text], { type }));
}
