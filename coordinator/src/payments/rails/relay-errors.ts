// Sorts what viem throws while relaying into "the token refused this authorization" (the payer's
// problem: a PaymentProblem) and "we could not reach or use the chain" (ours: a plain Error the
// caller maps to 503). Details shown to payers are fixed sentences: viem's messages embed the RPC
// URL, calldata and raw revert data, which belong in logs (`cause`) only.
import { BaseError, ContractFunctionRevertedError, ExecutionRevertedError } from 'viem';
import { PaymentProblem } from '../types.ts';

// FiatToken v2 revert reasons (TestUSDC copies them) → what the payer should hear.
const REVERT_DETAILS: [fragment: string, detail: string][] = [
  ['authorization is used or canceled', 'This payment authorization has already been used or cancelled.'],
  ['authorization is expired', 'The authorization expired before it could be settled; sign a new one.'],
  ['authorization is not yet valid', 'The authorization is not valid yet (validAfter is in the future).'],
  ['invalid signature', 'The token contract did not accept the signature for this authorization.'],
  ['exceeds balance', "The payer's token balance is too low for this payment."],
  ['blacklisted', 'The token issuer has blocked one of the accounts in this payment.'],
];
const GENERIC_REVERT = 'The token contract refused the payment authorization.';

/** A revert means the token refused: verification-failed. Anything else is infrastructure. */
export function classifyRelayError(err: unknown): Error {
  const revert = findRevert(err);
  if (revert !== undefined) {
    const detail = REVERT_DETAILS.find(([fragment]) => revert.includes(fragment))?.[1] ?? GENERIC_REVERT;
    return new PaymentProblem('verification-failed', detail, { cause: err });
  }
  return new Error('chain rail: could not relay the payment transaction (RPC unavailable or relayer misconfigured)', { cause: err });
}

/** The revert reason text if `err` is a revert ('' when the reason is unknown), else undefined. */
function findRevert(err: unknown): string | undefined {
  if (!(err instanceof BaseError)) return undefined;
  const reverted = err.walk((e) => e instanceof ContractFunctionRevertedError || e instanceof ExecutionRevertedError);
  if (reverted instanceof ContractFunctionRevertedError) return reverted.reason ?? '';
  if (reverted instanceof ExecutionRevertedError) return reverted.shortMessage;
  return undefined;
}

/** The receipt of a mined transaction said "reverted" (a duplicate raced us into the block). */
export function revertedReceiptProblem(txHash: `0x${string}`): PaymentProblem {
  return new PaymentProblem('verification-failed', GENERIC_REVERT, { cause: { txHash } });
}
