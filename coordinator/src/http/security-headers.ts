import type { FastifyHelmetOptions } from '@fastify/helmet';
import helmet from 'helmet';

/**
 * Security headers on every answer (@fastify/helmet on the routes). The API serves JSON and
 * presigned media: nothing may be framed, run scripts or submit forms, and resources may be
 * fetched cross-origin (callers play presigned media from their own pages). The few pages of the
 * consent flow (http/consent-pages.ts) keep all of it and only let their own form post.
 */
export const HELMET_OPTIONS = {
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      defaultSrc: ["'none'"],
      baseUri: ["'none'"],
      formAction: ["'none'"],
      frameAncestors: ["'none'"],
      // A browser opening a presigned image or media URL renders it in a document of its own.
      imgSrc: ["'self'"],
      mediaSrc: ["'self'"],
    },
  },
  crossOriginResourcePolicy: { policy: 'cross-origin' },
  frameguard: { action: 'deny' },
  referrerPolicy: { policy: 'no-referrer' },
} satisfies FastifyHelmetOptions;

/**
 * The same headers as a fixed map (no nonces are used, so they never vary), for the answers that
 * are sent before any hook runs: router errors (a malformed path) in error-handler.ts.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = (() => {
  const headers: Record<string, string> = {};
  const res = {
    setHeader(name: string, value: string | number) {
      headers[name.toLowerCase()] = String(value);
    },
    removeHeader(name: string) {
      delete headers[name.toLowerCase()];
    },
  };
  helmet(HELMET_OPTIONS)({} as never, res as never, () => {});
  return Object.freeze(headers);
})();
