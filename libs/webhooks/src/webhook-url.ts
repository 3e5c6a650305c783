import ipaddr from 'ipaddr.js';

/**
 * Which webhook URLs are accepted (docs/webhooks.md "URLs"): https only, at most 2048 characters, no
 * credentials, and every address the host resolves to must be public — private, loopback, link-local and other
 * non-unicast ranges are refused (SSRF) — unless WEBHOOK_ALLOWED_HOSTS names the host (exactly) or a CIDR that
 * holds the address. A host named there may also use http (tests' local receivers). CIDR matching by `ipaddr.js`
 * (docs/webhooks.md says why).
 */
export const MAX_WEBHOOK_URL_LENGTH = 2048;

export interface AllowedHosts {
  hosts: ReadonlySet<string>;
  cidrs: readonly [ipaddr.IPv4 | ipaddr.IPv6, number][];
}

export type UrlProblem = { reason: string };

/** Parses WEBHOOK_ALLOWED_HOSTS (comma-separated host names, IP addresses or CIDRs); throws on a malformed CIDR. */
export function parseAllowedHosts(value: string | readonly string[] | undefined): AllowedHosts {
  const entries = (typeof value === 'string' ? value.split(',') : (value ?? [])).map((e) => e.trim().toLowerCase()).filter((e) => e.length > 0);
  const hosts = new Set<string>();
  const cidrs: [ipaddr.IPv4 | ipaddr.IPv6, number][] = [];
  for (const entry of entries) {
    if (entry.includes('/')) {
      if (!ipaddr.isValidCIDR(entry)) throw new Error(`WEBHOOK_ALLOWED_HOSTS: "${entry}" is not a CIDR`);
      cidrs.push(ipaddr.parseCIDR(entry));
    } else {
      hosts.add(stripBrackets(entry));
    }
  }
  return { hosts, cidrs };
}

function stripBrackets(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

function inCidrs(address: string, allowed: AllowedHosts): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.process(address);
  return allowed.cidrs.some(([range, bits]) => parsed.kind() === range.kind() && parsed.match(range, bits));
}

/** Whether the URL's host is named by WEBHOOK_ALLOWED_HOSTS: the host itself, or an IP literal inside a listed CIDR. */
export function hostAllowed(host: string, allowed: AllowedHosts): boolean {
  const name = stripBrackets(host.toLowerCase());
  return allowed.hosts.has(name) || inCidrs(name, allowed);
}

/** The URL's own rules (no DNS): parsed URL, or the reason it is refused. */
export function checkWebhookUrl(raw: string, allowed: AllowedHosts): { url: URL } | UrlProblem {
  if (raw.length > MAX_WEBHOOK_URL_LENGTH) return { reason: `url is longer than ${MAX_WEBHOOK_URL_LENGTH} characters` };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { reason: 'url is not an absolute URL' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { reason: 'url must use https' };
  if (url.username || url.password) return { reason: 'url must not contain credentials' };
  if (!url.hostname) return { reason: 'url has no host' };
  if (url.protocol === 'http:' && !hostAllowed(url.hostname, allowed)) return { reason: 'url must use https (http only for hosts in WEBHOOK_ALLOWED_HOSTS)' };
  return { url };
}

/** The range name of an address that is not public unicast ("private", "loopback", "linkLocal", …), or null when public. */
export function nonPublicRange(address: string): string | null {
  if (!ipaddr.isValid(address)) return 'invalid';
  const parsed = ipaddr.process(address); // IPv4-mapped IPv6 becomes IPv4
  const range = parsed.range();
  return range === 'unicast' ? null : range;
}

/** Every resolved address must be public unless the host or the address is allowed; the first refusal, or null. */
export function checkResolvedAddresses(host: string, addresses: readonly string[], allowed: AllowedHosts): UrlProblem | null {
  if (!addresses.length) return { reason: `url host ${host} does not resolve` };
  if (hostAllowed(host, allowed)) return null;
  for (const address of addresses) {
    const range = nonPublicRange(address);
    if (range !== null && !inCidrs(address, allowed))
      return { reason: `url host ${host} resolves to a ${range} address (${address}); not allowed unless WEBHOOK_ALLOWED_HOSTS names it` };
  }
  return null;
}
