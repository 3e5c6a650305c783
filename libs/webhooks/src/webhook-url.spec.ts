import { describe, expect, it } from '@jest/globals';
import { checkResolvedAddresses, checkWebhookUrl, hostAllowed, nonPublicRange, parseAllowedHosts } from './webhook-url.js';

const none = parseAllowedHosts('');
const local = parseAllowedHosts('127.0.0.1, receiver.internal ,10.20.0.0/16,[::1]');

describe('webhook URL rules (no DNS)', () => {
  it.each([
    ['https://desk.example.com/hook', none, null],
    ['http://desk.example.com/hook', none, 'url must use https'],
    ['ftp://desk.example.com/hook', none, 'url must use https'],
    ['not a url', none, 'url is not an absolute URL'],
    ['https://user:pw@desk.example.com/', none, 'url must not contain credentials'],
    [`https://desk.example.com/${'a'.repeat(2048)}`, none, 'url is longer than 2048 characters'],
    ['http://127.0.0.1:8080/hook', local, null],
    ['http://receiver.internal/hook', local, null],
    ['http://RECEIVER.internal/hook', local, null],
    ['http://10.20.3.4/hook', local, null],
    ['http://10.21.3.4/hook', local, 'url must use https'],
    ['http://[::1]:9000/x', local, null],
    ['http://127.0.0.1:8080/hook', none, 'url must use https'],
  ])('%s → %s', (url, allowed, reason) => {
    const result = checkWebhookUrl(url, allowed);
    if (reason === null) expect(result).toHaveProperty('url');
    else expect(result).toEqual({ reason: expect.stringContaining(reason) });
  });
});

describe('resolved addresses (SSRF)', () => {
  it.each([
    ['93.184.216.34', null],
    ['2606:2800:220:1:248:1893:25c8:1946', null],
    ['127.0.0.1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['::1', 'loopback'],
    ['fe80::1', 'linkLocal'],
    ['fc00::1', 'uniqueLocal'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['0.0.0.0', 'unspecified'],
    ['100.64.0.1', 'carrierGradeNat'],
  ])('%s is %s', (address, range) => {
    expect(nonPublicRange(address)).toBe(range);
  });

  it('refuses a host when any of its addresses is private, naming the address', () => {
    expect(checkResolvedAddresses('mixed.example.com', ['93.184.216.34', '10.0.0.5'], none)).toEqual({
      reason: expect.stringContaining('private address (10.0.0.5)'),
    });
    expect(checkResolvedAddresses('ok.example.com', ['93.184.216.34'], none)).toBeNull();
    expect(checkResolvedAddresses('gone.example.com', [], none)).toEqual({ reason: expect.stringContaining('does not resolve') });
  });

  it('lets WEBHOOK_ALLOWED_HOSTS name the host or a CIDR holding the address', () => {
    expect(checkResolvedAddresses('receiver.internal', ['10.9.9.9'], local)).toBeNull();
    expect(checkResolvedAddresses('other.internal', ['10.20.1.1'], local)).toBeNull();
    expect(checkResolvedAddresses('other.internal', ['10.20.1.1', '192.168.0.1'], local)).toEqual({ reason: expect.stringContaining('192.168.0.1') });
    expect(checkResolvedAddresses('localhost', ['127.0.0.1'], local)).toEqual({ reason: expect.stringContaining('loopback') });
    expect(hostAllowed('127.0.0.1', local)).toBe(true);
    expect(hostAllowed('[::1]', local)).toBe(true);
  });

  it('refuses a malformed CIDR in WEBHOOK_ALLOWED_HOSTS', () => {
    expect(() => parseAllowedHosts('10.0.0.0/99')).toThrow('not a CIDR');
  });
});
