import { findUnsafeInput, type FieldError, type MultipartBody, type MultipartFile } from '@arbiter/common';
import type { UploadForm } from './file-documents.js';

/** The form fields an upload may carry besides its `file` parts (docs/documents.md "Upload"). */
export const UPLOAD_FIELDS = ['domain', 'keywords', 'metadata'] as const;
/** The domain of documents uploaded without one. */
export const DEFAULT_UPLOAD_DOMAIN = 'general';
const MAX_DOMAIN = 100;
const MAX_KEYWORDS = 100;
const MAX_KEYWORD = 200;
const MAX_METADATA_KEYS = 1000;
/** knowledge_file.file_name and knowledge_document.file_path hold this many characters. */
export const MAX_FILE_NAME = 900;

export interface CheckedUpload {
  form: UploadForm;
  files: MultipartFile[];
}

/** Splits `a, b，c` into unique trimmed keywords (ASCII and full-width commas). */
export function parseKeywords(raw: string): string[] {
  return [
    ...new Set(
      raw
        .split(/[,，]/)
        .map((k) => k.trim())
        .filter((k) => k.length > 0),
    ),
  ];
}

/**
 * Checks an upload's form: only `file` parts and the known fields, file names present, distinct and not too
 * long, `keywords` comma-separated, `metadata` a JSON object. Returns the problems (each naming its field:
 * `domain`, `metadata`, `file[2]`) or the checked form. Pure.
 */
export function checkUploadForm(body: MultipartBody): FieldError[] | CheckedUpload {
  const problems: FieldError[] = [];
  for (const name of Object.keys(body.fields)) {
    if (!(UPLOAD_FIELDS as readonly string[]).includes(name))
      problems.push({ field: name, errors: [`unknown field (allowed: file, ${UPLOAD_FIELDS.join(', ')})`] });
  }
  const domain = (body.fields.domain ?? DEFAULT_UPLOAD_DOMAIN).trim();
  if (!domain) problems.push({ field: 'domain', errors: ['domain must not be blank'] });
  else if (domain.length > MAX_DOMAIN) problems.push({ field: 'domain', errors: [`domain must be at most ${MAX_DOMAIN} characters`] });
  const keywords = parseKeywords(body.fields.keywords ?? '');
  if (keywords.length > MAX_KEYWORDS) problems.push({ field: 'keywords', errors: [`at most ${MAX_KEYWORDS} keywords`] });
  if (keywords.some((k) => k.length > MAX_KEYWORD)) problems.push({ field: 'keywords', errors: [`each keyword must be at most ${MAX_KEYWORD} characters`] });
  const metadata = parseMetadata(body.fields.metadata, problems);
  body.files.forEach((file, i) => {
    const field = `file[${i}]`;
    if (file.fieldName !== 'file') problems.push({ field: file.fieldName || field, errors: ['files are sent in parts named "file"'] });
    else if (!file.fileName) problems.push({ field, errors: ['a file part needs a filename'] });
    else if (file.fileName.length > MAX_FILE_NAME) problems.push({ field, errors: [`a file name must be at most ${MAX_FILE_NAME} characters`] });
    else if (body.files.findIndex((f) => f.fileName === file.fileName) < i)
      problems.push({ field, errors: [`${file.fileName} appears earlier in this upload`] });
  });
  if (!body.files.length) problems.push({ field: 'file', errors: ['send at least one file part named "file"'] });
  if (problems.length) return problems;
  return { form: { domain, keywords, metadata: metadata ?? {} }, files: body.files };
}

function parseMetadata(raw: string | undefined, problems: FieldError[]): Record<string, unknown> | undefined {
  if (raw === undefined || !raw.trim()) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    problems.push({ field: 'metadata', errors: ['metadata must be a JSON object'] });
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    problems.push({ field: 'metadata', errors: ['metadata must be a JSON object'] });
    return undefined;
  }
  // The same limits as a JSON body's (docs/http-edge.md "Bodies"): depth, keys per object, NUL bytes, surrogates.
  const unsafe = findUnsafeInput({ metadata: value });
  if (unsafe.length) {
    problems.push(...unsafe);
    return undefined;
  }
  if (Object.keys(value).length > MAX_METADATA_KEYS) {
    problems.push({ field: 'metadata', errors: [`metadata holds at most ${MAX_METADATA_KEYS} keys`] });
    return undefined;
  }
  return value as Record<string, unknown>;
}
