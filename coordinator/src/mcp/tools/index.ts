import type { BundleClip } from '@cutroom/shared/bundles';
import type { ToolCall } from '../tool-call.ts';
import { bundleTool, clipsFromJobTool, cutTool } from './cut-tools.ts';
import { productTool } from './product-tools.ts';
import { createSessionTool, downloadLinksTool, jobStatusTool, smokeTestTool, transcriptTool } from './read-tools.ts';
import type { ToolResult } from './tool-result.ts';
import { completeUploadTool, getUploadUrlTool, uploadJobTool } from './upload-tools.ts';

export type { ToolResult } from './tool-result.ts';

type Handler = (call: ToolCall, args: Record<string, unknown>) => Promise<ToolResult>;
// Arguments were validated against the tool's input schema (mcp/catalog.ts) before a handler runs.
type Args<T> = Record<string, unknown> & T;

/** Every tool of the catalog (mcp/catalog.ts) and the service calls it maps onto. */
export const TOOL_HANDLERS: Readonly<Record<string, Handler>> = {
  create_session: (call) => createSessionTool(call),
  transcribe: (call, args) => uploadJobTool(call, 'transcribe', args),
  summarize: (call, args) => uploadJobTool(call, 'summarize', args),
  find_clips: (call, args) => uploadJobTool(call, 'find_clips', args),
  complete_upload: (call, args) => completeUploadTool(call, args as Args<{ job_id: string }>),
  get_upload_url: (call, args) => getUploadUrlTool(call, args as Args<{ job_id: string }>),
  get_job_status: (call, args) => jobStatusTool(call, args as Args<{ job_id: string; wait_seconds?: number }>),
  get_transcript: (call, args) => transcriptTool(call, args as Args<{ job_id: string; format?: string }>),
  get_download_links: (call, args) => downloadLinksTool(call, args as Args<{ job_id: string }>),
  extract_clip: (call, args) => cutTool(call, 'extract_clip', args),
  extract_vertical_clip: (call, args) => cutTool(call, 'extract_vertical_clip', args),
  edit_from_transcript: (call, args) => cutTool(call, 'edit_from_transcript', args),
  clips_vertical: (call, args) => bundleTool(call, 'clips_vertical', args as Args<{ source_job_id: string; clips: BundleClip[] }>),
  clips_horizontal: (call, args) => bundleTool(call, 'clips_horizontal', args as Args<{ source_job_id: string; clips: BundleClip[] }>),
  clips_from_job: (call, args) => clipsFromJobTool(call, args as Parameters<typeof clipsFromJobTool>[1] & Record<string, unknown>),
  clips_from_video: (call, args) => productTool(call, 'clips_from_video', args),
  clips_youtube: (call, args) => productTool(call, 'clips_youtube', args),
  mpp_smoke_test: (call, args) => smokeTestTool(call, args as Args<{ echo?: string }>),
};
