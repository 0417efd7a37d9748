import { ConsentBrowser, fetchTransport, type BrowserResponse } from '../../coordinator/src/testing/consent-browser.ts';
import type { VideoHostFake } from '../fakes/video-host/index.ts';
import type { Stack } from './stack.ts';

export { ConsentBrowser };

/** A browser of its own (a person), against the stack's coordinator. */
export const consentBrowser = (stack: Stack) => new ConsentBrowser(fetchTransport, new URL(stack.coordinator.url).origin);

/**
 * Connects the fake's channel to the session as its user does, in one browser: POST the connection
 * request, open its authorize_url (our start page), press Continue, consent at the fake, and open
 * the callback it redirects to. The callback's answer, as JSON unless `accept` says otherwise.
 */
export async function connectInBrowser(
  stack: Stack,
  token: string,
  opts: { consent?: Parameters<VideoHostFake['consent']>[1]; accept?: string; browser?: ConsentBrowser } = {},
): Promise<BrowserResponse & { json: any; browser: ConsentBrowser }> {
  const start = await stack.api.call('POST', '/api/v1/connections/video-host', { token });
  if (start.status !== 201) throw new Error(`POST /connections/video-host → ${start.status} ${JSON.stringify(start.body)}`);
  const browser = opts.browser ?? consentBrowser(stack);
  const hostUrl = await browser.walkToHost(start.body.connection_request.authorize_url);
  const cb = await browser.get(stack.videoHost!.consent(hostUrl, opts.consent ?? {}), opts.accept ?? 'application/json');
  const type = String(cb.headers['content-type'] ?? '');
  return { ...cb, json: type.includes('json') ? JSON.parse(cb.body) : null, browser };
}
