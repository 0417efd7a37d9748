// EIP-3009 (transferWithAuthorization) building blocks shared by the chain rail, its tests and
// any client code that signs: the EIP-712 domain and types, and the challenge-bound nonce.
import { keccak256, stringToHex, type TypedDataDomain } from 'viem';

type Hex = `0x${string}`;

/** The `evm` credential payload: an EIP-3009 authorization exactly as the payer signed it.
 * Amounts and times are decimal strings on the wire (JSON has no bigint). */
export interface Eip3009Authorization {
  from: Hex;
  to: Hex;
  /** token base units (USDC: 6 decimals) */
  value: string;
  /** unix seconds; valid strictly after this */
  validAfter: string;
  /** unix seconds; valid strictly before this */
  validBefore: string;
  /** 32 bytes; ours is always challengeNonce(challengeId, realm) */
  nonce: Hex;
  /** 65-byte r‖s‖v EOA signature over the EIP-712 TransferWithAuthorization message */
  signature: Hex;
}

/** The token's EIP-712 identity. `name`/`version` must be the token's own (USDC: "USD Coin" / "2"
 * on most chains, "USDC" / "2" on some): a wrong one only shows up as "invalid signature". */
export interface TokenDomain {
  name: string;
  version: string;
  chainId: number;
  verifyingContract: Hex;
}

export const TRANSFER_WITH_AUTHORIZATION_TYPES = {
  TransferWithAuthorization: [
    { name: 'from', type: 'address' },
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' },
    { name: 'validBefore', type: 'uint256' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const;

/**
 * The EIP-3009 nonce for a challenge: keccak256(utf8(challengeId + realm)). Binding the nonce to
 * the challenge makes the token contract itself refuse a second settlement of one challenge,
 * even across coordinator replicas that share no memory.
 */
export function challengeNonce(challengeId: string, realm: string): Hex {
  return keccak256(stringToHex(challengeId + realm));
}

export function toTypedDataDomain(d: TokenDomain): TypedDataDomain {
  return { name: d.name, version: d.version, chainId: d.chainId, verifyingContract: d.verifyingContract };
}

/** Numeric view of an authorization; throws SyntaxError on a non-integer string (caller maps it). */
export function authorizationMessage(auth: Omit<Eip3009Authorization, 'signature'>) {
  return {
    from: auth.from,
    to: auth.to,
    value: parseUint(auth.value, 'value'),
    validAfter: parseUint(auth.validAfter, 'validAfter'),
    validBefore: parseUint(auth.validBefore, 'validBefore'),
    nonce: auth.nonce,
  };
}

/** Everything signTypedData / verifyTypedData need, in one object. */
export function transferAuthorizationTypedData(domain: TokenDomain, auth: Omit<Eip3009Authorization, 'signature'>) {
  return {
    domain: toTypedDataDomain(domain),
    types: TRANSFER_WITH_AUTHORIZATION_TYPES,
    primaryType: 'TransferWithAuthorization',
    message: authorizationMessage(auth),
  } as const;
}

// BigInt('') is 0n and BigInt(' 1') is 1n; a credential must spell a plain decimal integer.
function parseUint(s: string, field: string): bigint {
  if (typeof s !== 'string' || !/^(0|[1-9][0-9]{0,77})$/.test(s)) {
    throw new SyntaxError(`${field} must be a non-negative decimal integer string`);
  }
  return BigInt(s);
}
