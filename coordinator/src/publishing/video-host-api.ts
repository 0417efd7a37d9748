import { youtube } from '@googleapis/youtube';
import { OAuth2Client } from 'google-auth-library';

/**
 * The video host's Data API (YouTube Data API v3 shape) as the publish workflow uses it, through
 * the host's official clients: `@googleapis/youtube` for captions and video lookups, and the
 * resumable upload protocol over google-auth-library's authorized transport (`OAuth2Client.request`,
 * gaxios), because the library's own upload helper keeps the session only in memory and the
 * workflow must persist the session URI and resume it after a restart.
 */

/** How a host error is handled: refresh the token, wait for the quota window, back off, start the session over, or give up. */
export type HostErrorKind = 'auth' | 'quota' | 'retryable' | 'session_gone' | 'permanent';

export class HostError extends Error {
  readonly kind: HostErrorKind;
  readonly status: number;
  readonly reason: string | null;
  constructor(kind: HostErrorKind, status: number, reason: string | null, message: string) {
    super(message);
    this.name = 'HostError';
    this.kind = kind;
    this.status = status;
    this.reason = reason;
  }
}

interface GoogleErrorBody {
  error?: { code?: number; message?: string; errors?: { reason?: string }[] } | string;
  error_description?: string;
}

const QUOTA_REASONS = new Set(['quotaExceeded', 'uploadLimitExceeded', 'dailyLimitExceeded']);
const RATE_REASONS = new Set(['rateLimitExceeded', 'userRateLimitExceeded', 'backendError']);

/** Classifies a host answer by its status and Google's error reason. */
export function classifyHostError(status: number, body: unknown): HostError {
  const b = (body ?? {}) as GoogleErrorBody;
  const err = typeof b.error === 'object' ? b.error : undefined;
  const reason = err?.errors?.[0]?.reason ?? (typeof b.error === 'string' ? b.error : null);
  const message = `video host answered ${status}${reason ? ` (${reason})` : ''}: ${err?.message ?? b.error_description ?? 'no message'}`;
  if (status === 401 || reason === 'invalid_grant') return new HostError('auth', status, reason, message);
  if (reason && QUOTA_REASONS.has(reason)) return new HostError('quota', status, reason, message);
  if (status >= 500 || status === 429 || (reason && RATE_REASONS.has(reason))) return new HostError('retryable', status, reason, message);
  if (status === 404 || status === 410) return new HostError('session_gone', status, reason, message);
  return new HostError('permanent', status, reason, message);
}

/** A network failure (reset, refused, timeout) is worth another try. */
function networkError(err: unknown): HostError {
  const message = err instanceof Error ? err.message : String(err);
  return new HostError('retryable', 0, 'network', `video host unreachable: ${message}`);
}

export interface VideoResource {
  id: string;
  [k: string]: unknown;
}

/** Where a resumable upload stands: the bytes the host holds, or the video it made of them. */
export type UploadState = { done: false; offset: number } | { done: true; video: VideoResource };

export interface VideoMetadata {
  title: string;
  description: string;
  privacyStatus: 'private' | 'unlisted' | 'public';
}

const headerOf = (headers: unknown, name: string): string | null => {
  if (headers && typeof (headers as Headers).get === 'function') return (headers as Headers).get(name);
  const v = (headers as Record<string, string | undefined> | undefined)?.[name.toLowerCase()];
  return v ?? null;
};

/** `Range: bytes=0-N` of a 308 → N + 1 bytes held; no Range → none yet. */
export function offsetOfRange(range: string | null): number {
  const m = range ? /bytes=0-(\d+)/.exec(range) : null;
  return m ? Number(m[1]) + 1 : 0;
}

export function videoHostApi(opts: { apiBase: string; accessToken: string; timeoutMs?: number }) {
  const auth = new OAuth2Client();
  auth.setCredentials({ access_token: opts.accessToken });
  const rootUrl = `${opts.apiBase.replace(/\/$/, '')}/`;
  const yt = youtube({ version: 'v3', auth, rootUrl });
  const timeout = opts.timeoutMs ?? 120_000;

  /** One raw request on the authorized transport; any status comes back (the caller classifies). */
  async function send(init: { url: string; method: 'POST' | 'PUT'; headers: Record<string, string>; data?: unknown; params?: Record<string, string> }) {
    try {
      return await auth.request<unknown>({ ...init, timeout, validateStatus: () => true, responseType: 'json', retry: false });
    } catch (err) {
      throw networkError(err);
    }
  }

  /** 308 → bytes held; 200/201 → the video; else a classified error. */
  function uploadState(res: { status: number; headers: unknown; data: unknown }): UploadState {
    if (res.status === 308) return { done: false, offset: offsetOfRange(headerOf(res.headers, 'range')) };
    if (res.status === 200 || res.status === 201) {
      const video = res.data as VideoResource;
      if (!video?.id) throw new HostError('retryable', res.status, null, 'video host finished the upload without a video id');
      return { done: true, video };
    }
    throw classifyHostError(res.status, res.data);
  }

  return {
    /** Opens a resumable upload session for the video; answers its URI (to persist before any byte is sent). */
    async startUpload(meta: VideoMetadata, file: { bytes: number; contentType: string }): Promise<string> {
      const res = await send({
        url: `${opts.apiBase}/upload/youtube/v3/videos`,
        method: 'POST',
        params: { uploadType: 'resumable', part: 'snippet,status' },
        headers: {
          'Content-Type': 'application/json; charset=UTF-8',
          'X-Upload-Content-Length': String(file.bytes),
          'X-Upload-Content-Type': file.contentType,
        },
        data: { snippet: { title: meta.title, description: meta.description }, status: { privacyStatus: meta.privacyStatus } },
      });
      const location = headerOf(res.headers, 'location');
      if (res.status !== 200 || !location) throw classifyHostError(res.status, res.data);
      return location;
    },

    /** Asks the session where it stands (`Content-Range: bytes * /total`, no body). */
    async uploadStatus(sessionUri: string, total: number): Promise<UploadState> {
      return uploadState(await send({ url: sessionUri, method: 'PUT', headers: { 'Content-Range': `bytes */${total}`, 'Content-Length': '0' } }));
    },

    /** Sends the bytes at `offset` (they must start where the host's offset is). */
    async putChunk(sessionUri: string, chunk: Buffer, offset: number, total: number): Promise<UploadState> {
      const end = offset + chunk.length - 1;
      return uploadState(
        await send({
          url: sessionUri,
          method: 'PUT',
          headers: { 'Content-Range': `bytes ${offset}-${end}/${total}`, 'Content-Type': 'application/octet-stream' },
          data: chunk,
        }),
      );
    },

    /** The caption tracks of a video (to find one a crashed run already added). */
    async listCaptions(videoId: string): Promise<{ id: string; name: string | null }[]> {
      try {
        const res = await yt.captions.list({ part: ['snippet'], videoId });
        return (res.data.items ?? []).map((c) => ({ id: c.id!, name: c.snippet?.name ?? null }));
      } catch (err) {
        throw libraryError(err);
      }
    },

    /** Deletes a video of the connected channel (a failed publish's compensation); one already gone counts as deleted. */
    async deleteVideo(videoId: string): Promise<void> {
      try {
        await yt.videos.delete({ id: videoId });
      } catch (err) {
        const e = libraryError(err);
        if (e instanceof HostError && e.status === 404) return;
        throw e;
      }
    },

    async insertCaption(videoId: string, srt: string, track: { language: string; name: string }): Promise<string> {
      try {
        // Media uploads take the root URL per call: googleapis-common builds their URL from the call's options only.
        const res = await yt.captions.insert(
          {
            part: ['snippet'],
            requestBody: { snippet: { videoId, language: track.language, name: track.name, isDraft: false } },
            media: { mimeType: 'application/x-subrip', body: srt },
          },
          { rootUrl },
        );
        if (!res.data.id) throw new HostError('retryable', res.status, null, 'video host added a caption track without an id');
        return res.data.id;
      } catch (err) {
        throw libraryError(err);
      }
    },
  };
}

export type VideoHostApi = ReturnType<typeof videoHostApi>;

/** An error thrown by the client library (gaxios): its status and body classified like a raw answer. */
function libraryError(err: unknown): HostError {
  if (err instanceof HostError) return err;
  const res = (err as { response?: { status?: number; data?: unknown } }).response;
  if (res?.status) return classifyHostError(res.status, res.data);
  return networkError(err);
}
