// What every handler receives: the state, the fake's settings and the request being served.
import type { FormObject } from './form-body.ts';
import type { FakeState } from './state.ts';

export interface FakeSettings {
  /** http://host:port of the fake itself (hosted checkout pages live there) */
  baseUrl: string;
  /** epoch milliseconds */
  now(): number;
  minimumChargeAmount: number;
  webhookTimeoutMs: number;
  /** api_version written on events */
  apiVersion: string;
}

export interface RequestInfo {
  id: string;
  idempotencyKey: string | null;
  /** path parameters, e.g. {id: 'pi_…'} */
  params: Record<string, string>;
  /** form body (POST) or query string (GET) for /v1 routes; JSON body for /__fake routes */
  body: FormObject;
  /** decoded JSON body of /__fake routes */
  json: Record<string, unknown>;
}

export interface FakeContext {
  state: FakeState;
  settings: FakeSettings;
  req: RequestInfo;
}

/** Unix seconds, Stripe's unit for `created` and friends. */
export const nowSec = (ctx: { settings: FakeSettings }): number => Math.floor(ctx.settings.now() / 1000);
