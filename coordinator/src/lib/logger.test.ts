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

  it('redacts query values in URLs except harmless ones', () => {
    expect(redactUrl('/blobs/jobs/1/source?op=get&exp=17&ct=audio%2Fwav&fn=a.wav&sig=abc')).toBe(
      '/blobs/jobs/1/source?op=get&exp=17&ct=audio%2Fwav&fn=[redacted]&sig=[redacted]',
    );
    expect(redactUrl('/api/v1/checkout/complete?session_id=cs_live_1')).toBe('/api/v1/checkout/complete?session_id=[redacted]');
    expect(redactUrl('/d?format=srt&X-Amz-Signature=s&flag')).toBe('/d?format=srt&X-Amz-Signature=[redacted]&flag=[redacted]');
    expect(redactUrl('/api/v1/jobs')).toBe('/api/v1/jobs');
  });
});
