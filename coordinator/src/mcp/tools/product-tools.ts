import type { AgentProduct, ClipsFromVideoRequest } from '@cutroom/shared/products';
import { createProductCall } from '../../service/index.ts';
import type { ToolCall } from '../tool-call.ts';
import type { ToolResult } from './tool-result.ts';
import { uploadCreateTool } from './upload-tools.ts';

/**
 * clips_from_video, clips_youtube: create the product job (card only), place its hold, answer its
 * upload URL, exactly as an upload tool: the hold is the payment the gated upload URL takes
 * (unpaid → -32042 with the card challenge for the worst case and the hosted checkout; the paid
 * retry places the hold on that job).
 */
export function productTool(call: ToolCall, product: AgentProduct, args: Record<string, unknown>): Promise<ToolResult> {
  const { session_token: _t, ...req } = args;
  return uploadCreateTool(call, (creds) => createProductCall(call.ctx, creds, product, req as ClipsFromVideoRequest));
}
