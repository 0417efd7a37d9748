/**
 * `Payment-Receipt` header: base64url (no padding) of JSON
 * `{method, reference, status: "success", timestamp}` (+ `externalId` when the request had
 * one), produced by mppx's `Receipt.from` + `Receipt.serialize`, so mppx's client
 * `Receipt.fromResponse` reads it back. Send it only on 2xx, with `Cache-Control: private`.
 */
import { Receipt as MppxReceipt } from 'mppx';

export const RECEIPT_HEADER = 'Payment-Receipt';

export interface PaymentReceipt {
  status: 'success';
  method: string;
  /** RFC 3339 settlement time. */
  timestamp: string;
  /** tx hash (evm) or PaymentIntent id (stripe). */
  reference: string;
  externalId?: string;
}

export interface FormatReceiptInput {
  method: string;
  reference: string;
  timestamp: Date | string;
  externalId?: string;
}

/** The receipt object (also what MCP puts in `result._meta["org.paymentauth/receipt"]`, plus `challengeId`). */
export function buildReceipt(input: FormatReceiptInput): PaymentReceipt {
  const timestamp = input.timestamp instanceof Date ? input.timestamp.toISOString() : input.timestamp;
  const receipt = MppxReceipt.from({
    method: input.method,
    reference: input.reference,
    status: 'success',
    timestamp,
    ...(input.externalId !== undefined && { externalId: input.externalId }),
  });
  return {
    status: 'success',
    method: receipt.method,
    timestamp: receipt.timestamp,
    reference: receipt.reference,
    ...(receipt.externalId !== undefined && { externalId: receipt.externalId }),
  };
}

/** The `Payment-Receipt` header value. */
export function formatReceipt(input: FormatReceiptInput): string {
  return MppxReceipt.serialize(buildReceipt(input));
}

/** Reads a `Payment-Receipt` header value (tests, clients). Throws on a malformed value. */
export function parseReceipt(headerValue: string): PaymentReceipt {
  const r = MppxReceipt.deserialize(headerValue);
  return {
    status: 'success',
    method: r.method,
    timestamp: r.timestamp,
    reference: r.reference,
    ...(r.externalId !== undefined && { externalId: r.externalId }),
  };
}
