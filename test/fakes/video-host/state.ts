// Everything the fake knows, in memory. Wire resources (videos, captions) are rendered from
// these records on the way out (see resources/render.ts), so bookkeeping the real host keeps
// server-side (which grant opened an upload, the bytes received so far, a caption's text) sits
// in the same record without leaking into responses.
import { randomBytes } from 'node:crypto';

/** A fake Google account with its one YouTube channel: the user who clicks "Allow". */
export interface FakeUser {
  /** channel id, `UC` + 22 characters */
  id: string;
  title: string;
  createdAt: number;
}

/** An authorization code between consent and the token exchange (one use, 10 minutes). */
export interface AuthCode {
  code: string;
  clientId: string;
  redirectUri: string;
  userId: string;
  scopes: string[];
  codeChallenge: string | null;
  codeChallengeMethod: 'S256' | 'plain' | null;
  /** whether the token response carries a refresh token (access_type=offline, first consent or prompt=consent) */
  offline: boolean;
  expiresAt: number;
  usedAt: number | null;
}

/** One consent by one user to the client: the refresh token and every access token minted from it. */
export interface Grant {
  id: string;
  clientId: string;
  userId: string;
  scopes: string[];
  refreshToken: string | null;
  createdAt: number;
  /** refresh tokens of unverified "Testing" apps expire (opts.refreshTokenTtlMs) */
  refreshExpiresAt: number | null;
  revokedAt: number | null;
}

export interface AccessToken {
  token: string;
  grantId: string;
  expiresAt: number;
}

/** A resumable videos.insert session (`upload_id`). */
export interface UploadSession {
  id: string;
  channelId: string;
  grantId: string;
  /** the `part` list of the opening request: what the final response renders */
  parts: string[];
  metadata: VideoMetadata;
  contentType: string;
  /** X-Upload-Content-Length, or the total of the first Content-Range that names one */
  total: number | null;
  /** bytes the host keeps (the Range it reports); always a multiple of the granularity until complete */
  data: Buffer;
  createdAt: number;
  expiresAt: number;
  /** set once the last byte arrived: the one video this session created */
  videoId: string | null;
}

export type PrivacyStatus = 'public' | 'private' | 'unlisted';

/** What videos.insert accepts (validated) from the request body's video resource. */
export interface VideoMetadata {
  title: string;
  description: string;
  tags: string[];
  categoryId: string;
  privacyStatus: PrivacyStatus;
  selfDeclaredMadeForKids: boolean | null;
  defaultLanguage: string | null;
}

export interface Video extends VideoMetadata {
  id: string;
  channelId: string;
  publishedAt: number;
  etag: string;
  media: { size: number; sha256: string; contentType: string };
  /** which upload protocol created it, and the resumable session if any */
  uploadType: 'resumable' | 'multipart' | 'media';
  uploadId: string | null;
}

export interface Caption {
  id: string;
  videoId: string;
  channelId: string;
  language: string;
  name: string;
  isDraft: boolean;
  etag: string;
  lastUpdated: number;
  /** the uploaded track, kept so tests can read what was published */
  text: string;
  contentType: string;
  /** 'serving' when the text parses as SRT or WebVTT, else 'failed' with failureReason 'unknownFormat' */
  status: 'serving' | 'failed';
}

/** Quota of the one API project (the OAuth client), per Pacific day. */
export interface QuotaState {
  limit: number;
  used: number;
  /** the Pacific date the counters belong to, YYYY-MM-DD */
  day: string;
  /** epoch ms of the next Pacific midnight, when `used` goes back to 0 */
  resetsAt: number;
  /** units spent today per method, e.g. {'videos.insert': 1600} */
  byMethod: Record<string, number>;
  /** videos.insert calls accepted today per channel (the per-channel upload limit) */
  uploadsByChannel: Record<string, number>;
}

export interface Fault {
  id: string;
  /** route names it applies to (see routes.ts); empty = every API, upload and OAuth route */
  routes: string[];
  method: string | null;
  remaining: number;
  /** HTTP status answered with Google's error JSON; ignored for resets */
  status: number;
  reason: string;
  /** destroy the socket before reading the request */
  reset: boolean;
  /** read this many body bytes, then destroy the socket (an upload interrupted mid-chunk) */
  resetAfterBytes: number | null;
  /** serve the request, then destroy the socket instead of answering */
  dropResponse: boolean;
  /** a slow host: wait this long after the body arrived, then serve the request normally (no error) */
  delayMs: number | null;
}

export interface RequestLogEntry {
  at: number;
  method: string;
  path: string;
  /** the route's name (e.g. 'videos.insert', 'upload.put'), null when nothing matched */
  route: string | null;
  /** 0: the connection was destroyed without an answer */
  status: number;
  /** request body bytes the fake received */
  bytes: number;
  uploadType: string | null;
  uploadId: string | null;
  /** the Content-Range header of an upload PUT, and where its bytes start (null for a status query) */
  contentRange: string | null;
  chunkStart: number | null;
  /** what the host kept after this request (upload PUTs) */
  persisted: number | null;
  fault: boolean;
}

export interface FakeState {
  users: Map<string, FakeUser>;
  codes: Map<string, AuthCode>;
  grants: Map<string, Grant>;
  accessTokens: Map<string, AccessToken>;
  uploads: Map<string, UploadSession>;
  videos: Map<string, Video>;
  captions: Map<string, Caption>;
  quota: QuotaState;
  faults: Fault[];
  requests: RequestLogEntry[];
}

export function createState(quota: QuotaState): FakeState {
  return {
    users: new Map(),
    codes: new Map(),
    grants: new Map(),
    accessTokens: new Map(),
    uploads: new Map(),
    videos: new Map(),
    captions: new Map(),
    quota,
    faults: [],
    requests: [],
  };
}

const URL_SAFE = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** Random characters from the URL-safe base64 alphabet (YouTube video ids are 11 of them). */
export function randomId(length: number, alphabet = URL_SAFE): string {
  let out = '';
  for (const b of randomBytes(length)) out += alphabet[b % alphabet.length];
  return out;
}

export const newChannelId = (): string => `UC${randomId(22)}`;
export const newVideoId = (): string => randomId(11);
export const newEtag = (): string => randomId(27);
