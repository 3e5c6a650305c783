import { lookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { checkResolvedAddresses, type AllowedHosts, type UrlProblem } from './webhook-url.js';

/** Every address of the host (an IP literal is its own), checked against the SSRF rules (webhook-url.ts). */
export async function resolveWebhookHost(url: URL, allowed: AllowedHosts): Promise<{ addresses: { address: string; family: number }[] } | UrlProblem> {
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  let addresses: { address: string; family: number }[];
  if (isIP(host)) {
    addresses = [{ address: host, family: isIP(host) }];
  } else {
    try {
      addresses = await lookup(host, { all: true, verbatim: true });
    } catch (error) {
      return { reason: `url host ${host} does not resolve (${(error as NodeJS.ErrnoException).code ?? 'error'})` };
    }
  }
  const problem = checkResolvedAddresses(
    host,
    addresses.map((a) => a.address),
    allowed,
  );
  return problem ?? { addresses };
}

export interface PostResult {
  status: number;
  durationMs: number;
  /** The first 500 characters of the response body (the delivery log). */
  bodySnippet: string;
}

/**
 * POSTs the body to the URL, connecting only to the addresses checked just before (a pinned lookup: a DNS answer
 * that changes between check and connect cannot reach a private address). Rejects on a network error or when no
 * answer arrives within `timeoutMs`.
 */
export function postWebhook(
  url: URL,
  addresses: { address: string; family: number }[],
  body: string,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<PostResult> {
  const pinned: LookupFunction = (_hostname, options, callback) => {
    if (options.all) (callback as (err: null, addresses: { address: string; family: number }[]) => void)(null, addresses);
    else callback(null, addresses[0]!.address, addresses[0]!.family);
  };
  const started = performance.now();
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<PostResult>((resolve, reject) => {
    const request = client.request(
      url,
      {
        method: 'POST',
        lookup: pinned,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'user-agent': 'Arbiter-Webhooks/1', ...headers },
        signal: AbortSignal.timeout(timeoutMs),
      },
      (response) => {
        let snippet = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          if (snippet.length < 500) snippet += chunk.slice(0, 500 - snippet.length);
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, durationMs: Math.round(performance.now() - started), bodySnippet: snippet }));
        response.on('error', reject);
      },
    );
    request.on('error', (error: Error) => reject(error.name === 'AbortError' ? new Error(`no answer within ${timeoutMs} ms`) : error));
    request.end(body);
  });
}
