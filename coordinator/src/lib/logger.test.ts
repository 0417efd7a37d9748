import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from './logger.ts';

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
});
