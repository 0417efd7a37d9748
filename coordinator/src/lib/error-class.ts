import { ERRORS, type ErrorClass, ErrorCode } from '@cutroom/shared/failures';

/**
 * The taxonomy class of anything a service call threw. Errors that belong to the taxonomy name
 * their class themselves: a `code` of shared's ErrorCode (AppError; the payment gate's 402s in
 * payments/, whose problem may carry its own HTTP `status`). Anything else is unexpected
 * (internal) and never exposes its message. Every transport maps through this: REST takes
 * `status`, MCP and tRPC take `rpc`. Duck-typed on purpose: lib/ imports no feature (payments/
 * depends on lib/, not the other way round).
 */
export function errorClassOf(err: unknown): ErrorClass & { code: ErrorCode; message: string } {
  const own = err instanceof Error ? ErrorCode.safeParse((err as { code?: unknown }).code) : null;
  if (!own?.success) return { code: 'internal', ...ERRORS.internal, message: 'internal error; please retry' };
  const status = (err as { status?: unknown }).status;
  return { code: own.data, ...ERRORS[own.data], ...(typeof status === 'number' && { status }), message: (err as Error).message };
}
