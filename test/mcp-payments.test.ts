import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { Credential } from 'mppx';
import { evm, stripe as stripeMethod } from 'mppx/client';
import { McpClient } from 'mppx/mcp/client';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_USDC_DOMAIN } from './fixtures/index.ts';
import { chainPayer } from './harness/chain-payer.ts';
import { concatWavs, librivoxUtterances, makeVideo } from './harness/media.ts';
import { startStack, type Stack } from './harness/stack.ts';

type ToolAnswer = {
  isError?: boolean;
  structuredContent?: Record<string, any>;
  content: { text: string }[];
  receipt?: Record<string, any>;
  _meta?: Record<string, any>;
};

/**
 * Paying over MCP with billing on (local chain with the EIP-3009 test token, card processor
 * fake): the stock mppx MCP client answers -32042 with the `evm` method and gets a receipt in
 * result._meta; a replayed credential is refused; a paid job runs; bundles offer the chain
 * USDC per-clip rate here (the REST derivatives route is card only).
 */
describe('MCP payments', () => {
  let stack: Stack;
  let payer: ReturnType<typeof chainPayer>;
  const work = mkdtempSync(join(tmpdir(), 'cutroom-mcp-pay-'));
  const video = join(work, 'speech.mp4');
  const clients: Client[] = [];

  const connect = async () => {
    const c = new Client({ name: 'cutroom-test', version: '1.0.0' });
    await c.connect(new StreamableHTTPClientTransport(new URL(`${stack.coordinator.url}/mcp`)));
    clients.push(c);
    return c;
  };
  const account = () => privateKeyToAccount(stack.billing!.payer.privateKey);
  /** The stock mppx MCP client: pays -32042 with the `evm` method on the stack's chain. */
  const wallet = async () => McpClient.wrap(await connect(), { methods: [evm({ account: account(), authorization: TEST_USDC_DOMAIN })] });
  /** The stock mppx MCP client with only the card (`stripe`) method: its wallet grants an SPT on the processor fake. */
  const cardWallet = async () =>
    McpClient.wrap(await connect(), {
      methods: [
        stripeMethod({
          paymentMethod: 'pm_card_visa',
          createToken: async (p) => stack.billing!.stripe.createSharedPaymentToken({ maxAmount: Number(p.amount) }).id,
        }),
      ],
    });
  const paymentError = async (p: Promise<unknown>) => {
    const err = await p.then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(McpError);
    return err as McpError & { data: Record<string, any> };
  };

  beforeAll(async () => {
    const speech = join(work, 'speech.wav');
    await concatWavs(
      librivoxUtterances()
        .slice(0, 2)
        .map((u) => u.file),
      speech,
    );
    await makeVideo(speech, video);
    stack = await startStack({ billing: true, storage: 'local', agents: 1 });
    payer = chainPayer(stack.billing!);
  });
  afterAll(async () => {
    for (const c of clients) await c.close();
    await stack?.stop();
  });

  it('an unpaid tool answers -32042 with the MPP challenges (request as an object), the problem and the hosted checkout', async () => {
    const raw = await connect();
    const { session_token } = (await raw.callTool({ name: 'create_session', arguments: {} })).structuredContent as { session_token: string };
    const err = await paymentError(raw.callTool({ name: 'transcribe', arguments: { filename: 'a.mp4', content_type: 'video/mp4', session_token } }));
    expect(err.code).toBe(-32042);
    expect(err.data.httpStatus).toBe(402);
    const methods = err.data.challenges.map((c: { method: string }) => c.method);
    expect(methods).toEqual(expect.arrayContaining(['evm', 'stripe']));
    const evmChallenge = err.data.challenges.find((c: { method: string }) => c.method === 'evm');
    expect(evmChallenge.request).toMatchObject({ amount: '700000', externalId: err.data.job_id });
    expect(err.data.problem).toMatchObject({ type: 'https://paymentauth.org/problems/payment-required', status: 402 });
    expect(err.data).toMatchObject({ job_id: expect.any(String), price_cents: 100, checkout_url: expect.stringMatching(/^http/) });
  });

  it('the stock mppx MCP client pays the smoke test: receipt in result._meta naming a real transfer', async () => {
    const before = await payer.balanceOf(payer.address);
    const paid = (await (await wallet()).callTool({ name: 'mpp_smoke_test', arguments: { echo: 'over mcp' } })) as ToolAnswer;
    expect(paid.structuredContent).toEqual({ paid: true, service: 'cutroom', echo: 'over mcp' });
    expect(paid._meta?.['org.paymentauth/receipt']).toMatchObject({ status: 'success', method: 'evm', challengeId: expect.any(String) });
    expect(paid.receipt).toMatchObject({ method: 'evm', reference: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    const transfers = await payer.transfersIn(paid.receipt!.reference);
    expect(transfers).toEqual([{ from: payer.address, to: stack.billing!.relayer.address, value: 10_000n }]);
    expect(before - (await payer.balanceOf(payer.address))).toBe(10_000n);
  });

  it('a credential is consumed once: the same credential again is refused (-32043), nothing more is taken', async () => {
    const raw = await connect();
    const first = await paymentError(raw.callTool({ name: 'mpp_smoke_test', arguments: {} }));
    const challenge = first.data.challenges.find((c: { method: string }) => c.method === 'evm');
    const [method] = evm({ account: account(), authorization: TEST_USDC_DOMAIN });
    const credential = Credential.deserialize(await method.createCredential({ challenge } as never));
    const meta = { 'org.paymentauth/credential': credential };
    const ok = (await raw.callTool({ name: 'mpp_smoke_test', arguments: {}, _meta: meta })) as ToolAnswer;
    expect(ok.structuredContent).toMatchObject({ paid: true });
    const balance = await payer.balanceOf(payer.address);
    const replay = await paymentError(raw.callTool({ name: 'mpp_smoke_test', arguments: {}, _meta: meta }));
    expect(replay.code).toBe(-32043);
    expect(replay.data.problem).toMatchObject({ type: 'https://paymentauth.org/problems/invalid-challenge' });
    expect(replay.message).toMatch(/already used/);
    expect(replay.data.challenges.length, 'a fresh offer to pay again').toBeGreaterThan(0);
    expect(await payer.balanceOf(payer.address)).toBe(balance);
    // A malformed credential is invalid params, never a crash.
    const malformed = await paymentError(raw.callTool({ name: 'mpp_smoke_test', arguments: {}, _meta: { 'org.paymentauth/credential': { challenge: 1 } } }));
    expect(malformed.code).toBe(-32602);
  });

  it('a paid tool called without a session: the -32042 offers the hosted checkout and the session_token that owns its job, to that caller only', async () => {
    const raw = await connect();
    const err = await paymentError(raw.callTool({ name: 'transcribe', arguments: { filename: 'a.wav', content_type: 'audio/wav' } }));
    expect(err.code).toBe(-32042);
    expect(err.data).toMatchObject({
      job_id: expect.any(String),
      price_cents: 50,
      checkout_url: expect.stringMatching(/^http/),
      card_checkout_session_id: expect.stringMatching(/^cs_/),
      session_id: expect.any(String),
      session_token: expect.any(String),
    });
    // Its challenges stay paid creation's (bound to the request: a stock client's credential creates its own job and session).
    expect(err.data.challenges.map((c: { method: string }) => c.method)).toEqual(expect.arrayContaining(['evm', 'stripe']));
    for (const c of err.data.challenges) expect(c.request.externalId).toBeUndefined();
    const { job_id, session_token, card_checkout_session_id } = err.data;
    // The job id alone reaches nothing, and nothing hands the token out again.
    const stranger = (await raw.callTool({ name: 'create_session', arguments: {} })).structuredContent as { session_token: string };
    for (const args of [{ job_id }, { job_id, session_token: stranger.session_token }]) {
      for (const name of ['get_job_status', 'get_upload_url']) {
        const answer = (await raw.callTool({ name, arguments: args })) as ToolAnswer;
        expect(answer.isError, name).toBe(true);
        expect(JSON.stringify(answer)).not.toContain(session_token);
      }
    }
    const landing = await fetch(`${stack.coordinator.url}/api/v1/checkout/complete?session_id=${card_checkout_session_id}`);
    expect(await landing.text()).not.toContain(session_token);
    // Paid at the hosted checkout, the job goes on with the token the -32042 gave.
    const pay = await fetch(`${stack.billing!.stripe.url}/__fake/checkout/sessions/${card_checkout_session_id}/pay`, { method: 'POST', body: '{}' });
    expect(pay.status).toBe(200);
    const upload = (await raw.callTool({ name: 'get_upload_url', arguments: { job_id, session_token } })) as ToolAnswer;
    expect(upload.isError, upload.content[0]?.text).toBeFalsy();
    expect(upload.structuredContent).toMatchObject({ job_id, payment_status: 'paid', upload_url: expect.stringMatching(/^http/) });
  });

  /** The find_clips job the next case pays and runs, and its session: the cuts' parent afterwards. */
  let parent: { job_id: string; session_token: string } | undefined;

  it('pays a find_clips job without a session (paid creation), runs it, and the parent then sells a bundle at the chain per-clip rate', async () => {
    const client = await wallet();
    const created = (await client.callTool({ name: 'find_clips', arguments: { filename: 'talk.mp4', content_type: 'video/mp4' } })) as ToolAnswer;
    expect(created.isError, created.content[0]?.text).toBeFalsy();
    const { job_id, upload_url, session_token } = created.structuredContent!;
    expect(session_token).toEqual(expect.any(String));
    expect(created.receipt).toMatchObject({ method: 'evm', status: 'success' });
    expect(await payer.transfersIn(created.receipt!.reference)).toEqual([{ from: payer.address, to: stack.billing!.relayer.address, value: 1_700_000n }]);
    expect((await fetch(upload_url, { method: 'PUT', headers: { 'content-type': 'video/mp4' }, body: readFileSync(video) })).ok).toBe(true);
    await client.callTool({ name: 'complete_upload', arguments: { job_id, session_token } });
    const done = (await client.callTool({ name: 'get_job_status', arguments: { job_id, session_token, wait_seconds: 200 } }, undefined, {
      timeout: 210_000,
    })) as ToolAnswer;
    expect(done.structuredContent!.status, done.structuredContent!.error_message).toBe('completed');
    expect(done.structuredContent!.payment_status).toBe('paid');
    parent = { job_id, session_token };

    // Two clips by window: the bundle's challenge offers 2 × 0.20 USDC on the chain (and 2 × 0.50 USD by card).
    const clips = [
      { start: 0.5, end: 3, profile: 'vidA-primary-720p' },
      { start: 3, end: 5.5, profile: 'vidA-primary-720p' },
    ];
    const raw = await connect();
    const unpaid = await paymentError(raw.callTool({ name: 'clips_vertical', arguments: { source_job_id: job_id, clips, session_token } }));
    expect(unpaid.code).toBe(-32042);
    expect(unpaid.data.challenges.find((c: { method: string }) => c.method === 'evm').request).toMatchObject({ amount: '400000' });
    expect(unpaid.data.challenges.find((c: { method: string }) => c.method === 'stripe').request).toMatchObject({ amount: '100' });
    expect(unpaid.data).toMatchObject({ quantity: 2, unit_price_cents: 50, checkout_url: expect.stringMatching(/^http/) });

    const bundle = (await client.callTool({ name: 'clips_vertical', arguments: { source_job_id: job_id, clips, session_token } })) as ToolAnswer;
    expect(bundle.isError, bundle.content[0]?.text).toBeFalsy();
    expect(bundle.structuredContent).toMatchObject({ status: 'processing', quantity: 2 });
    expect(await payer.transfersIn(bundle.receipt!.reference)).toEqual([{ from: payer.address, to: stack.billing!.relayer.address, value: 400_000n }]);
    const ended = (await client.callTool(
      { name: 'get_job_status', arguments: { job_id: bundle.structuredContent!.job_id, session_token, wait_seconds: 200 } },
      undefined,
      { timeout: 210_000 },
    )) as ToolAnswer;
    expect(ended.structuredContent!.status, ended.structuredContent!.error_message).toBe('completed');
    expect(ended.structuredContent!.outputs.map((o: { role: string }) => o.role)).toEqual(expect.arrayContaining(['clip_1', 'clip_2']));
  });

  it('cuts offer their hosted checkout too (extract_clip, extract_vertical_clip, edit_from_transcript); paying it starts the cut', async () => {
    expect(parent, 'the find_clips case ran').toBeDefined();
    const { job_id: source_job_id, session_token } = parent!;
    const raw = await connect();
    const edit = (await raw.callTool({ name: 'get_transcript', arguments: { job_id: source_job_id, session_token, format: 'edit' } })) as ToolAnswer;
    const firstLine = edit.structuredContent!.transcript.split('\n')[0];
    expect(firstLine).toMatch(/^\[0001\] /);
    const cuts: [string, Record<string, unknown>][] = [
      ['extract_clip', { segments: [{ start: 0.5, end: 2 }] }],
      ['extract_vertical_clip', { start: 0.5, end: 2, profile: 'vidA-primary-720p' }],
      ['edit_from_transcript', { edit: `${firstLine}\n` }],
    ];
    const offered: Record<string, Record<string, any>> = {};
    for (const [name, args] of cuts) {
      const err = await paymentError(raw.callTool({ name, arguments: { ...args, source_job_id, session_token } }));
      expect(err.code, name).toBe(-32042);
      expect(err.data, name).toMatchObject({
        job_id: expect.any(String),
        price_cents: expect.any(Number),
        checkout_url: expect.stringMatching(/^http/),
        card_checkout_session_id: expect.stringMatching(/^cs_/),
      });
      expect(err.data.challenges.find((c: { method: string }) => c.method === 'evm').request.externalId, name).toBe(err.data.job_id);
      expect(stack.billing!.stripe.state.checkoutSessions.get(err.data.card_checkout_session_id)!.metadata['job_id'], name).toBe(err.data.job_id);
      offered[name] = err.data;
    }
    // Paying a cut's checkout starts it (no second call: the next one is the poll).
    const clip = offered['extract_clip']!;
    const pay = await fetch(`${stack.billing!.stripe.url}/__fake/checkout/sessions/${clip.card_checkout_session_id}/pay`, { method: 'POST', body: '{}' });
    expect(pay.status).toBe(200);
    const done = (await raw.callTool({ name: 'get_job_status', arguments: { job_id: clip.job_id, session_token, wait_seconds: 200 } }, undefined, {
      timeout: 210_000,
    })) as ToolAnswer;
    expect(done.structuredContent!.status, done.structuredContent!.error_message).toBe('completed');
    expect(done.structuredContent!.payment_status).toBe('paid');
  });

  it('clips_from_video over MCP: card only, a 450 hold by SPT, released whole when no clip could be cut', async () => {
    const raw = await connect();
    const { session_token } = (await raw.callTool({ name: 'create_session', arguments: {} })).structuredContent as { session_token: string };
    const args = { filename: 'short.mp4', content_type: 'video/mp4', max_clips: 2, session_token };
    const unpaid = await paymentError(raw.callTool({ name: 'clips_from_video', arguments: args }));
    expect(unpaid.code).toBe(-32042);
    expect(unpaid.data.challenges.map((c: { method: string }) => c.method)).toEqual(['stripe']);
    expect(unpaid.data.challenges[0].request).toMatchObject({ amount: '450', currency: 'usd' });
    expect(unpaid.data).toMatchObject({ price_cents: 450, checkout_url: expect.stringMatching(/^http/) });

    const client = await cardWallet();
    const created = (await client.callTool({ name: 'clips_from_video', arguments: args })) as ToolAnswer;
    expect(created.isError, created.content[0]?.text).toBeFalsy();
    expect(created.receipt).toMatchObject({ method: 'stripe', status: 'success', reference: expect.stringMatching(/^pi_/) });
    const pi = created.receipt!.reference as string;
    const fake = stack.billing!.stripe;
    expect(fake.state.paymentIntents.get(pi)).toMatchObject({ status: 'requires_capture', amount_capturable: 450, capture_method: 'manual' });

    const { job_id, upload_url } = created.structuredContent!;
    expect((await fetch(upload_url, { method: 'PUT', headers: { 'content-type': 'video/mp4' }, body: readFileSync(video) })).ok).toBe(true);
    await client.callTool({ name: 'complete_upload', arguments: { job_id, session_token } });
    const done = (await client.callTool({ name: 'get_job_status', arguments: { job_id, session_token, wait_seconds: 200 } }, undefined, {
      timeout: 210_000,
    })) as ToolAnswer;
    // Seconds of speech give find_clips no candidate: no clip could be cut, so nothing is captured (README "Agent products").
    expect(done.structuredContent!.status, done.structuredContent!.error_message).toBe('completed');
    expect(done.structuredContent!.outputs.map((o: { role: string }) => o.role)).toEqual(expect.arrayContaining(['clips', 'transcript']));
    const deadline = Date.now() + 20_000;
    while (fake.state.paymentIntents.get(pi)!.status === 'requires_capture' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    expect(fake.state.paymentIntents.get(pi)).toMatchObject({ status: 'canceled', amount_received: 0 });
  });
});
