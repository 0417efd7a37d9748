import { ContractFunctionExecutionError, ContractFunctionRevertedError, HttpRequestError, parseAbi } from 'viem';
import { describe, expect, it } from 'vitest';
import { PaymentProblem } from '../types.ts';
import { classifyRelayError } from './relay-errors.ts';

const abi = parseAbi(['function transferWithAuthorization(address,address,uint256,uint256,uint256,bytes32,uint8,bytes32,bytes32)']);
const RPC_URL = 'https://base-mainnet.example/v2/SECRET_API_KEY';

function reverted(message: string) {
  const cause = new ContractFunctionRevertedError({ abi, functionName: 'transferWithAuthorization', message });
  return new ContractFunctionExecutionError(cause, {
    abi,
    functionName: 'transferWithAuthorization',
    args: [],
    contractAddress: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
  });
}

describe('classifyRelayError', () => {
  it('maps a used-nonce revert to verification-failed with a plain detail', () => {
    const err = classifyRelayError(reverted('execution reverted: FiatTokenV2: authorization is used or canceled'));
    expect(err).toBeInstanceOf(PaymentProblem);
    expect((err as PaymentProblem).type).toBe('verification-failed');
    expect(err.message).toBe('This payment authorization has already been used or cancelled.');
  });

  it('maps an unknown revert to a generic verification-failed without raw data', () => {
    const err = classifyRelayError(reverted('execution reverted: 0xdeadbeef'));
    expect((err as PaymentProblem).type).toBe('verification-failed');
    expect(err.message).not.toMatch(/0x|deadbeef|transferWithAuthorization/);
    expect(err.cause).toBeDefined(); // the raw error stays available to logs
  });

  it('treats an unreachable node as a plain Error that does not repeat the RPC URL', () => {
    const err = classifyRelayError(new HttpRequestError({ url: RPC_URL, details: 'fetch failed' }));
    expect(err).not.toBeInstanceOf(PaymentProblem);
    expect(err.message).not.toContain('SECRET_API_KEY');
  });

  it('treats a non-viem error as infrastructure too', () => {
    expect(classifyRelayError(new TypeError('boom'))).not.toBeInstanceOf(PaymentProblem);
  });
});
