import createClient, { type Middleware } from 'openapi-fetch';
import type { paths } from './schema';
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
