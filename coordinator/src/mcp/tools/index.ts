import type { ListJobsQuery } from '@cutroom/shared/api';
import type { BundleClip } from '@cutroom/shared/bundles';
import { JOB_TYPE_DEFINITIONS } from '../../job-types/agent-types.ts';
import type { ToolCall } from '../tool-call.ts';
import { bundleTool, clipsFromJobTool, cutTool } from './cut-tools.ts';
import { productTool } from './product-tools.ts';
import { createSessionTool, downloadLinksTool, jobStatusTool, listJobsTool, smokeTestTool, transcriptTool } from './read-tools.ts';
import type { ToolResult } from './tool-result.ts';
import { completeUploadTool, getUploadUrlTool, uploadJobTool } from './upload-tools.ts';

export type { ToolResult } from './tool-result.ts';

type Handler = (call: ToolCall, args: Record<string, unknown>) => Promise<ToolResult>;
// Arguments were validated against the tool's input schema (mcp/catalog.ts) before a handler runs.
type Args<T> = Record<string, unknown> & T;

/** An agent-run type's tool (its definition's `mcp`): an upload job, or a cut of a parent job. */
const agentHandlers = Object.fromEntries(
  Object.values(JOB_TYPE_DEFINITIONS).flatMap((def): [string, Handler][] =>
    def && 'title' in def.mcp
      ? [[def.type, (call, args) => (def.facts.input.kind === 'upload' ? uploadJobTool(call, def.type, args) : cutTool(call, def.type, args))]]
      : [],
  ),
);

/** Every tool of the catalog (mcp/catalog.ts) and the service calls it maps onto. */
export const TOOL_HANDLERS: Readonly<Record<string, Handler>> = {
  ...agentHandlers,
  create_session: (call) => createSessionTool(call),
  complete_upload: (call, args) => completeUploadTool(call, args as Args<{ job_id: string }>),
  get_upload_url: (call, args) => getUploadUrlTool(call, args as Args<{ job_id: string }>),
  get_job_status: (call, args) => jobStatusTool(call, args as Args<{ job_id: string; wait_seconds?: number }>),
  get_transcript: (call, args) => transcriptTool(call, args as Args<{ job_id: string; format?: string }>),
  get_download_links: (call, args) => downloadLinksTool(call, args as Args<{ job_id: string }>),
  list_jobs: (call, args) => listJobsTool(call, args as Args<ListJobsQuery>),
  clips_vertical: (call, args) => bundleTool(call, 'clips_vertical', args as Args<{ source_job_id: string; clips: BundleClip[] }>),
  clips_horizontal: (call, args) => bundleTool(call, 'clips_horizontal', args as Args<{ source_job_id: string; clips: BundleClip[] }>),
  clips_from_job: (call, args) => clipsFromJobTool(call, args as Parameters<typeof clipsFromJobTool>[1] & Record<string, unknown>),
  clips_from_video: (call, args) => productTool(call, 'clips_from_video', args),
  clips_youtube: (call, args) => productTool(call, 'clips_youtube', args),
  mpp_smoke_test: (call, args) => smokeTestTool(call, args as Args<{ echo?: string }>),
};
