// The slice of the USDC (FiatToken v2) ABI the chain rail calls. Human-readable so a reviewer can
// diff it against the token's verified source; parseAbi keeps full viem typing.
import { parseAbi } from 'viem';

export const USDC_ABI = parseAbi([
  'function balanceOf(address account) view returns (uint256)',
  'function transfer(address to, uint256 value) returns (bool)',
  'function authorizationState(address authorizer, bytes32 nonce) view returns (bool)',
  // The (v, r, s) overload exists on every USDC deployment; the `bytes` one only from v2.2.
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)',
  'event Transfer(address indexed from, address indexed to, uint256 value)',
  'event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)',
  // authorizationState is also true for an authorization its payer cancelled (nothing moved).
  'event AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce)',
]);
