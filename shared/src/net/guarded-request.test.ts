import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkUrl, guardedRequest, RefusedUrlError } from './guarded-request.ts';
import { checkAddress } from './public-address.ts';

/** Every class of address a caller's URL must not reach, with an example of each (the closing table of issue 28). */
const REFUSED: readonly [string, string, RegExp][] = [
  ['loopback IPv4', '127.0.0.1', /loopback/],
  ['loopback, elsewhere in 127/8', '127.255.0.9', /loopback/],
  ['loopback IPv6', '::1', /loopback/],
  ['private 10/8', '10.1.2.3', /private/],
  ['private 172.16/12', '172.31.255.1', /private/],
  ['private 192.168/16', '192.168.0.10', /private/],
  ['cloud metadata (AWS, GCP, Azure)', '169.254.169.254', /link-local/],
  ['link-local IPv6', 'fe80::1', /link-local/],
  ['AWS IPv6 metadata', 'fd00:ec2::254', /unique-local/],
  ['unique-local IPv6', 'fc12:3456::1', /unique-local/],
  ['Alibaba metadata, carrier-grade NAT', '100.100.100.200', /carrier-grade/],
  ['unspecified IPv4', '0.0.0.0', /unspecified/],
  ['unspecified IPv6', '::', /unspecified/],
  ['multicast', '224.0.0.1', /multicast/],
  ['broadcast', '255.255.255.255', /broadcast/],
  ['documentation net', '192.0.2.7', /reserved/],
  ['benchmarking net', '198.18.0.1', /reserved/],
  ['reserved 240/4', '240.0.0.1', /reserved/],
  ['IPv4-mapped loopback', '::ffff:127.0.0.1', /IPv4-mapped/],
  ['IPv4-mapped metadata', '::ffff:169.254.169.254', /IPv4-mapped/],
  ['NAT64 of metadata', '64:ff9b::a9fe:a9fe', /NAT64/],
  ['6to4 of loopback', '2002:7f00:1::', /6to4/],
  ['Teredo', '2001:0:4136:e378:8000:63bf:3fff:fdd2', /Teredo/],
  ['site-local IPv6', 'fec0::1', /site-local/],
];

describe('checkAddress', () => {
  it.each(REFUSED)('refuses %s (%s)', (_what, address, range) => {
    const v = checkAddress(address);
    expect(v.allowed).toBe(false);
    expect(!v.allowed && v.range).toMatch(range);
  });
  it('allows public unicast addresses, v4 and v6', () => {
    for (const a of ['93.184.215.14', '8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '2a00:1450:4001:82a::200e'])
      expect(checkAddress(a), a).toEqual({ allowed: true });
    expect(checkAddress('example.com')).toEqual({ allowed: false, range: 'not an IP address', kind: 'other' });
  });
});

describe('checkUrl', () => {
  it('takes https, and http only when the operator allows it', () => {
    expect(checkUrl('https://media.example/talk.mp4').host).toBe('media.example');
    expect(() => checkUrl('http://media.example/talk.mp4')).toThrow(/http URLs are not fetched: use https$/);
    expect(checkUrl('http://media.example/talk.mp4', { allowHttp: true }).protocol).toBe('http:');
    for (const bad of ['ftp://media.example/a.mp3', 'file:///etc/passwd', 'data:audio/wav;base64,AAAA', 'gopher://x/', 'javascript:alert(1)']) {
      expect(() => checkUrl(bad, { allowHttp: true }), bad).toThrow(RefusedUrlError);
    }
  });
  it('refuses credentials in the URL, relative and over-long URLs', () => {
    expect(() => checkUrl('https://user:secret@media.example/a.mp4')).toThrow(/user name or password/);
    expect(() => checkUrl('/talk.mp4')).toThrow(/not an absolute URL/);
    expect(() => checkUrl(`https://media.example/${'a'.repeat(2100)}`)).toThrow(/longer than 2048/);
  });
});

describe('guardedRequest', () => {
  let server: http.Server;
  let port: number;
  const seen: { url: string; host: string; method: string }[] = [];
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      seen.push({ url: req.url!, host: req.headers.host!, method: req.method! });
      const to = (location: string, status = 302) => res.writeHead(status, { location }).end();
      if (req.url === '/ok') res.writeHead(200, { 'content-type': 'audio/wav' }).end('RIFF');
      else if (req.url === '/to-ok') to(`http://127.0.0.1:${port}/ok`);
      else if (req.url === '/to-metadata') to('http://169.254.169.254/latest/meta-data/');
      else if (req.url === '/to-name') to(`http://internal.example:${port}/ok`);
      else if (req.url === '/to-file') to('file:///etc/passwd');
      else if (req.url === '/see-other') to('/ok', 303);
      else if (req.url?.startsWith('/loop')) to(`/loop${(req.url.length % 7) + 1}`);
      else if (req.url === '/silent')
        req.socket.setTimeout(0); // never answers
      else res.writeHead(404).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  // The test server is on 127.0.0.1: allowed only through the test setting, as in the flows.
  const local = { timeoutMs: 5_000, allowHttp: true, allowAddresses: ['127.0.0.1'] };

  it.each(REFUSED)('refuses a URL on %s (%s) before connecting', async (_what, address, range) => {
    const host = address.includes(':') ? `[${address}]` : address;
    const before = seen.length;
    await expect(guardedRequest(`http://${host}:${port}/ok`, { timeoutMs: 2_000, allowHttp: true })).rejects.toThrow(range);
    expect(seen.length).toBe(before);
  });

  it('refuses the other spellings of loopback the URL parser normalises (decimal, hex, short)', async () => {
    for (const u of [`http://2130706433:${port}/ok`, `http://0x7f.1:${port}/ok`, `http://127.1:${port}/ok`, `http://[::ffff:7f00:1]:${port}/ok`]) {
      await expect(guardedRequest(u, { timeoutMs: 2_000, allowHttp: true }), u).rejects.toMatchObject({ reason: 'address' });
    }
  });

  it('refuses a name that resolves to a private address, or to any private one among public ones', async () => {
    const to = (...addresses: string[]) => ({
      ...local,
      allowAddresses: [],
      resolve: async () => addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
    });
    await expect(guardedRequest('https://media.example/a.mp4', to('10.0.0.5'))).rejects.toThrow(
      'media.example resolves to 10.0.0.5, a private (RFC 1918) address',
    );
    await expect(guardedRequest('https://media.example/a.mp4', to('93.184.215.14', '169.254.169.254'))).rejects.toThrow(/169\.254\.169\.254, a link-local/);
    await expect(guardedRequest('https://localhost/a.mp4', { timeoutMs: 2_000 })).rejects.toMatchObject({ reason: 'address' });
    await expect(
      guardedRequest('https://nowhere.invalid/a.mp4', {
        ...local,
        resolve: async () => Promise.reject(Object.assign(new Error('not found'), { code: 'ENOTFOUND' })),
      }),
    ).rejects.toThrow('nowhere.invalid could not be resolved (ENOTFOUND)');
  });

  it('connects to the address it checked: one resolution per connection, the name kept for the Host header (no rebinding)', async () => {
    let calls = 0;
    // A rebinding resolver: the checked answer first, a private address on every later question.
    const resolve = async () => [{ address: calls++ === 0 ? '127.0.0.1' : '10.0.0.1', family: 4 }];
    const res = await guardedRequest(`http://media.example:${port}/ok`, { ...local, resolve });
    expect(res.status).toBe(200);
    res.body.resume();
    expect(calls).toBe(1);
    expect(seen.at(-1)).toEqual({ url: '/ok', host: `media.example:${port}`, method: 'GET' });
  });

  it('re-checks every redirect: followed to an allowed address, refused to metadata, a private name or another scheme', async () => {
    const ok = await guardedRequest(`http://127.0.0.1:${port}/to-ok`, local);
    expect([ok.status, ok.url.pathname]).toEqual([200, '/ok']);
    ok.body.resume();
    await expect(guardedRequest(`http://127.0.0.1:${port}/to-metadata`, local)).rejects.toThrow(/169\.254\.169\.254 is a link-local/);
    const resolve = async (h: string) => [{ address: h === 'internal.example' ? '10.9.8.7' : '127.0.0.1', family: 4 }];
    await expect(guardedRequest(`http://127.0.0.1:${port}/to-name`, { ...local, resolve })).rejects.toThrow('internal.example resolves to 10.9.8.7');
    await expect(guardedRequest(`http://127.0.0.1:${port}/to-file`, local)).rejects.toMatchObject({ reason: 'scheme' });
    await expect(guardedRequest(`http://127.0.0.1:${port}/loop1`, local)).rejects.toThrow('more than 5 redirects');
    await expect(guardedRequest(`http://127.0.0.1:${port}/to-ok`, { ...local, maxRedirects: 0 })).rejects.toThrow(/redirects are not followed/);
    const posted = await guardedRequest(`http://127.0.0.1:${port}/see-other`, { ...local, method: 'POST', body: '{}' });
    expect(posted.status).toBe(200);
    posted.body.resume();
    expect(seen.at(-1)).toMatchObject({ url: '/ok', method: 'GET' });
  });

  it('gives up on a server that does not answer within the deadline', async () => {
    const started = Date.now();
    await expect(guardedRequest(`http://127.0.0.1:${port}/silent`, { ...local, timeoutMs: 300 })).rejects.toThrow(/did not answer within 300 ms/);
    expect(Date.now() - started).toBeLessThan(3_000);
  });
});
