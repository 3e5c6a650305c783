import createClient, { type Middleware } from 'openapi-fetch';
import type { components, paths } from './schema';
import { clearOperatorKey, readOperatorKey } from '../lib/operator-key';

/** Every API error has this shape (docs/CONVENTIONS.md "Errors"); the console shows message and requestId. */
export interface ApiErrorBody {
  statusCode: number;
  error?: string;
  message: string;
  details?: unknown;
  requestId?: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly requestId: string | null,
    readonly details: unknown = undefined,
  ) {
    super(message);
  }

  get isAuth(): boolean {
    return this.status === 401 || this.status === 403;
  }
}

/** Whatever a call threw, as an ApiError (a network failure or a bug becomes status 0 with its message). */
export function asApiError(reason: unknown): ApiError {
  return reason instanceof ApiError ? reason : new ApiError(0, reason instanceof Error ? reason.message : String(reason), null);
}

/** Listeners told when a call is refused for the key (401/403): the app goes back to sign-in with the API's message. */
const authListeners = new Set<(error: ApiError) => void>();
export function onAuthFailure(listener: (error: ApiError) => void): () => void {
  authListeners.add(listener);
  return () => authListeners.delete(listener);
}

const withKey: Middleware = {
  onRequest({ request }) {
    const key = readOperatorKey();
    if (key) request.headers.set('x-api-key', key);
    return request;
  },
};

export const api = createClient<paths>({ baseUrl: window.location.origin });
api.use(withKey);

function toApiError(response: Response, body: unknown): ApiError {
  const parsed = (body ?? {}) as Partial<ApiErrorBody>;
  const message = typeof parsed.message === 'string' ? parsed.message : `${response.status} ${response.statusText}`;
  return new ApiError(response.status, message, parsed.requestId ?? response.headers.get('x-request-id'), parsed.details);
}

type FetchResult<T> = { data?: T; error?: unknown; response: Response };

/** The data of a settled openapi-fetch result, or its ApiError (on 401/403 the key is dropped and sign-in shown). */
export function unwrap<T>(result: FetchResult<T>): T {
  if (result.response.ok) return result.data as T;
  const error = toApiError(result.response, result.error);
  if (error.isAuth) {
    clearOperatorKey();
    for (const listener of authListeners) listener(error);
  }
  throw error;
}

/** Awaits an openapi-fetch call and unwraps it; a network failure becomes an ApiError with status 0. */
export async function call<T>(request: Promise<FetchResult<T>>): Promise<T> {
  let result: FetchResult<T>;
  try {
    result = await request;
  } catch (error) {
    throw asApiError(error);
  }
  return unwrap(result);
}

export type UploadStarted = components['schemas']['UploadStartedDto'];

/**
 * Uploads files as multipart/form-data (docs/documents.md "Upload"). Not through openapi-fetch: its body is
 * a JSON-typed object, and the browser must build the multipart body (and its boundary) from File objects.
 */
export async function uploadFiles(files: readonly File[], fields: Readonly<Record<string, string>>): Promise<UploadStarted> {
  const form = new FormData();
  for (const file of files) form.append('file', file, file.name);
  for (const [name, value] of Object.entries(fields)) if (value.trim()) form.append(name, value.trim());
  return send<UploadStarted>('/admin/knowledge/files', { method: 'POST', body: form });
}

/** Downloads a document's original file (the key goes in a header, so not through a plain link). */
export async function downloadFile(documentId: string): Promise<{ blob: Blob; fileName: string }> {
  const response = await sendRaw(`/admin/knowledge/documents/${encodeURIComponent(documentId)}/file`, { method: 'GET' });
  const disposition = response.headers.get('content-disposition') ?? '';
  const encoded = /filename\*=UTF-8''([^;]+)/.exec(disposition)?.[1];
  return { blob: await response.blob(), fileName: encoded ? decodeURIComponent(encoded) : 'download' };
}

/** The audit log as CSV with the page's filters (docs/http-edge.md "Audit log"); the key goes in a header, so fetched, not linked. */
export async function downloadAuditCsv(query: Readonly<Record<string, string | undefined>>): Promise<Blob> {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, value);
  const response = await sendRaw(`/admin/audit/export?${params.toString()}`, { method: 'GET' });
  return response.blob();
}

async function sendRaw(path: string, init: RequestInit): Promise<Response> {
  const key = readOperatorKey();
  let response: Response;
  try {
    response = await fetch(`${window.location.origin}${path}`, { ...init, headers: key ? { 'x-api-key': key } : {} });
  } catch (error) {
    throw asApiError(error);
  }
  if (!response.ok) unwrap({ error: await response.json().catch(() => undefined), response });
  return response;
}

async function send<T>(path: string, init: RequestInit): Promise<T> {
  const response = await sendRaw(path, init);
  return unwrap<T>({ data: (await response.json()) as T, response });
}
