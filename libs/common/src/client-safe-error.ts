/**
 * A short description of an upstream failure (LLM, embedding, HTTP client) that is safe to show a
 * client: the kind of failure, never the upstream body, host, port or model output. The raw text
 * belongs in the log, under the request id.
 */
export function clientSafeError(raw: string): string {
  if (/time(d)?[ -]?out|aborted|AbortError/i.test(raw)) return 'timeout';
  // OpenAI-style clients put the status first ("401 Incorrect API key…", "500 status code (no body)"), wrappers after a colon.
  const status = /(?:^|:)\s*([45]\d\d)\b|\bstatus(?: code)?:? ([45]\d\d)\b|\bHTTP ([45]\d\d)\b/i.exec(raw);
  if (status) return `upstream HTTP ${status[1] ?? status[2] ?? status[3]}`;
  if (/ECONNREFUSED|ENOTFOUND|ECONNRESET|EAI_AGAIN|EHOSTUNREACH|ETIMEDOUT|connection error|fetch failed|socket hang up|network/i.test(raw))
    return 'upstream unreachable';
  if (/unknown intent/i.test(raw)) return 'judge answered an unknown intent';
  if (/numeric confidence/i.test(raw)) return 'judge answered without a numeric confidence';
  if (/dimension/i.test(raw)) return 'embedding dimension mismatch';
  if (/json|parse|malformed|unexpected token/i.test(raw)) return 'upstream answered malformed output';
  return 'upstream error';
}
