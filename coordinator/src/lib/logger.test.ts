import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, redactUrl } from './logger.ts';

describe('logger', () => {
  it('never writes session tokens or payment credentials', () => {
    let out = '';
    const sink = new Writable({
      write(chunk, _enc, done) {
        out += chunk.toString();
        done();
      },
    });
    const log = createLogger('info', 'test', sink);
    log.info({ req: { headers: { authorization: 'Payment eyJzZWNyZXQi', 'payment-signature': 'eyJ4NDAy', 'stripe-signature': 't=1,v1=ab' } } }, 'request');
    log.info({ headers: { authorization: 'Bearer crs_abc' } }, 'call');
    log.info({ body: { session_token: 'crs_def' } }, 'created');
    expect(out).not.toMatch(/eyJzZWNyZXQi|eyJ4NDAy|v1=ab|crs_abc|crs_def/);
    expect(out.match(/\[redacted\]/g)).toHaveLength(5);
  });

  it('never writes OAuth tokens, PKCE verifiers or client secrets of the video host', () => {
    let out = '';
    const sink = new Writable({
      write(chunk, _enc, done) {
        out += chunk.toString();
        done();
      },
    });
    const log = createLogger('info', 'test', sink);
    log.info({ refresh_token: '1//rt-a', tokens: { access_token: 'ya29.at-b', refresh_token: '1//rt-c', id_token: 'eyJ-d' } }, 'grant');
    log.info({ code_verifier: 'verifier-e', data: { client_secret: 'secret-f', codeVerifier: 'verifier-g', accessToken: 'ya29.h' } }, 'exchange');
    expect(out).not.toMatch(/rt-a|at-b|rt-c|eyJ-d|verifier-e|secret-f|verifier-g|ya29\.h/);
  });

  it('redacts query values in URLs except harmless ones', () => {
    expect(redactUrl('/blobs/jobs/1/source?op=get&exp=17&ct=audio%2Fwav&fn=a.wav&sig=abc')).toBe(
      '/blobs/jobs/1/source?op=get&exp=17&ct=audio%2Fwav&fn=[redacted]&sig=[redacted]',
    );
    expect(redactUrl('/api/v1/checkout/complete?session_id=cs_live_1')).toBe('/api/v1/checkout/complete?session_id=[redacted]');
    expect(redactUrl('/d?format=srt&X-Amz-Signature=s&flag')).toBe('/d?format=srt&X-Amz-Signature=[redacted]&flag=[redacted]');
    expect(redactUrl('/api/v1/jobs')).toBe('/api/v1/jobs');
  });
});
