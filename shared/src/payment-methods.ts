/**
 * Rails as the spec names them (chain, card) and the MPP method ids stock clients select by.
 * `card` is already a registered MPP method with other semantics, so the card rail speaks
 * `stripe` (Shared Payment Tokens) on the wire; the chain rail speaks `evm` (EIP-3009 USDC).
 */
export const RAILS = ['chain', 'card'] as const;
export type Rail = (typeof RAILS)[number];

export const WIRE_METHOD: Record<Rail, string> = { chain: 'evm', card: 'stripe' };
export const RAIL_OF_METHOD: Record<string, Rail> = { evm: 'chain', stripe: 'card' };

/** Currency of each rail as it appears in challenges and mpp.json. */
export const RAIL_CURRENCY: Record<Rail, string> = { chain: 'USDC', card: 'usd' };
