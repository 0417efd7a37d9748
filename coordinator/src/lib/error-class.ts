import { ERRORS, type ErrorClass, type ErrorCode } from '@cutroom/shared/failures';
import { PaymentRequiredError } from '../payments/gate.ts';
import { PaymentProblem } from '../payments/types.ts';
import { isAppError } from './app-error.ts';

/**
 * The taxonomy class of anything a service call threw: AppError, the payment gate's 402s, or an
 * unexpected error (internal). Every transport maps through this: REST takes `status`, MCP and
 * tRPC take `rpc`. Unexpected errors never expose their message.
 */
export function errorClassOf(err: unknown): ErrorClass & { code: ErrorCode; message: string } {
  if (isAppError(err)) return { code: err.code, ...ERRORS[err.code], message: err.message };
  if (err instanceof PaymentRequiredError) return { code: err.code, ...ERRORS[err.code], message: err.message };
  if (err instanceof PaymentProblem) return { code: err.code, ...ERRORS[err.code], status: err.status, message: err.message };
  return { code: 'internal', ...ERRORS.internal, message: 'internal error; please retry' };
}
