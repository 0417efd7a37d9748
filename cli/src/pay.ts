import type { Api } from './api-client.ts';
import { errorFrom } from './api-client.ts';
import type { Job } from './api-types.ts';
import type { Settings } from './config.ts';
import { CliError, EXIT } from './errors.ts';
import type { Ui } from './progress.ts';
import { chainPayment, describeOffer, fitsJobCap, fromAtomic, isPayableUrl } from './wallet.ts';

export interface PayContext {
  api: Api;
  settings: Settings;
  ui: Ui;
  jobId: string;
  /** The hosted checkout of the job, when the create response carried one. */
  checkoutUrl?: string | undefined;
}

/** Makes one call of the gated route; `headers` carries a payment credential on the paid retry. */
export type GatedCall = (headers?: Record<string, string>) => Promise<Response>;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** How long a chain payment may stay "being confirmed" (503 + Retry-After) before giving up. */
const CONFIRM_WAIT_MS = 5 * 60_000;

/**
 * Makes a payment-gated call (upload-url, process). A 402 is paid: with CUTROOM_WALLET_KEY by
 * the stock mppx `evm` client (chain rail), else through the job's hosted checkout, waited for;
 * then the call is repeated. Returns the final response (the caller checks it). A job is paid
 * once: the service refuses a second payment, and a paid job passes without a 402.
 */
export async function callPaid(ctx: PayContext, call: GatedCall, what: string): Promise<Response> {
  const first = await call();
  if (first.status !== 402) return first;
  if (ctx.settings.walletKey) {
    const paid = await payWithWallet(ctx, first, call, what);
    if (paid) return paid;
  } else {
    await first.body?.cancel();
  }
  await waitForCheckout(ctx, await describeOffer(first));
  const again = await call();
  if (again.status === 402) throw await errorFrom(again, what);
  return again;
}

/** What this process signed for each job (base units): CUTROOM_MAX_PAYMENT_PER_JOB caps the sum, whatever number of calls asks. */
const signedForJob = new Map<string, bigint>();

/** Pays the 402 on the chain rail and repeats the call with the credential; null when the chain rail is not offered. */
async function payWithWallet(ctx: PayContext, challenge: Response, call: GatedCall, what: string): Promise<Response | null> {
  if (!isPayableUrl(ctx.settings.baseUrl)) {
    await challenge.body?.cancel();
    throw new CliError(
      EXIT.payment,
      `refusing to pay ${ctx.settings.baseUrl} over plain http: a payment credential sent in the clear can be taken and spent`,
      'use the https URL of the service (plain http is paid only on this machine: 127.0.0.1, ::1, localhost)',
    );
  }
  const payment = await chainPayment(ctx.api, ctx.settings, challenge);
  if (!payment) {
    ctx.ui.info('the service offers no chain payment for this call: falling back to the hosted checkout');
    return null;
  }
  const before = signedForJob.get(ctx.jobId) ?? 0n;
  if (!fitsJobCap(before, payment.atomic, payment.decimals, ctx.settings.maxPaymentPerJob)) {
    throw new CliError(
      EXIT.payment,
      `the service asks ${payment.display} for job ${ctx.jobId} after ${fromAtomic(before, payment.decimals)} USDC already signed for it, more than CUTROOM_MAX_PAYMENT_PER_JOB (${ctx.settings.maxPaymentPerJob} USDC)`,
      'a job is paid once: check the job with `cutroom status` before raising CUTROOM_MAX_PAYMENT_PER_JOB',
    );
  }
  signedForJob.set(ctx.jobId, before + payment.atomic);
  ctx.ui.info(`paying ${payment.display} for job ${ctx.jobId.slice(0, 8)} from ${payment.payer} (chain rail)`);
  const credential = await payment.credential();
  let res = await call({ authorization: credential });
  // 503: the transfer is not confirmed yet. Repeat with the same credential (never pay again) until it is.
  if (res.status === 503) {
    const spinner = ctx.ui.spinner('the payment is being confirmed on the chain');
    const deadline = Date.now() + CONFIRM_WAIT_MS;
    while (res.status === 503 && Date.now() < deadline) {
      await res.body?.cancel();
      await sleep(Math.min(30, Number(res.headers.get('retry-after')) || 5) * 1000);
      res = await call({ authorization: credential });
    }
    spinner.stop();
    if (res.status === 503) {
      const err = await errorFrom(res, what);
      throw new CliError(EXIT.payment, err.message, `do not pay again: run the same command later (job ${ctx.jobId})`);
    }
  }
  if (res.status === 402) {
    const err = await errorFrom(res, what);
    throw new CliError(EXIT.payment, `the payment was refused: ${err.message}`, 'check the wallet balance and CUTROOM_TOKEN_NAME / CUTROOM_TOKEN_VERSION');
  }
  if (res.ok) ctx.ui.info('payment accepted');
  return res;
}

/** Prints the hosted checkout URL and waits until the job is paid (or the time is up). */
async function waitForCheckout(ctx: PayContext, price: string | null): Promise<void> {
  const { api, jobId, ui } = ctx;
  let url = ctx.checkoutUrl;
  if (!url) {
    const res = await api.send('POST', `/api/v1/jobs/${jobId}/checkout`);
    if (res.status === 409) return; // paid meanwhile
    if (!res.ok) {
      const err = await errorFrom(res, 'opening the hosted checkout');
      throw new CliError(EXIT.payment, `job ${jobId.slice(0, 8)} needs payment, and ${err.message}`, 'set CUTROOM_WALLET_KEY to pay on the chain rail');
    }
    url = ((await res.json()) as { checkout_url: string }).checkout_url;
  }
  ui.info(
    `job ${jobId.slice(0, 8)} needs payment${price ? `: ${price}` : ''}. Pay in a browser:\n\n  ${url}\n\n(or set CUTROOM_WALLET_KEY to pay on the chain rail)`,
  );
  const spinner = ui.spinner(`waiting for the payment of job ${jobId.slice(0, 8)} (Ctrl-C stops waiting; the same command continues later)`);
  const deadline = Date.now() + ctx.settings.payTimeoutMs;
  try {
    for (;;) {
      const job = await api.json<Job>('GET', `/api/v1/jobs/${jobId}`, `reading job ${jobId}`);
      if (job.payment_status === 'paid' || job.payment_status === 'paid_by_parent') break;
      if (job.status === 'deleted' || job.status === 'failed')
        throw new CliError(EXIT.jobFailed, `job ${jobId} ${job.status === 'deleted' ? 'expired' : 'failed'} before it was paid`);
      if (Date.now() > deadline) {
        throw new CliError(
          EXIT.payment,
          `job ${jobId} was not paid within ${Math.round(ctx.settings.payTimeoutMs / 60_000)} min`,
          'pay at the URL above, then run the same command again (or `cutroom resume`)',
        );
      }
      await sleep(2000);
    }
  } finally {
    spinner.stop();
  }
  ui.info('payment received');
}
