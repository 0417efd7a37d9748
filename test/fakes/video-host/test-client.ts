// For the fake's own tests: an account connected the way a service connects one (auth URL with
// PKCE S256 from the official OAuth2Client, consent, code exchange), and the official YouTube
// client on top of it. Also the raw resumable-protocol steps the client library does not expose.
import { CodeChallengeMethod, OAuth2Client } from 'google-auth-library';
import { youtube, type youtube_v3 } from '@googleapis/youtube';
import { SCOPES, type FakeUser, type VideoHostFake } from './index.ts';

export const REDIRECT_URI = 'http://127.0.0.1:4555/oauth/callback';

export function oauthClient(fake: VideoHostFake, redirectUri = REDIRECT_URI): OAuth2Client {
  return new OAuth2Client({ clientId: fake.clientId, clientSecret: fake.clientSecret, redirectUri, endpoints: fake.oauthEndpoints });
}

export interface AuthStart {
  oauth2: OAuth2Client;
  authUrl: string;
  codeVerifier: string;
}

export async function startAuth(fake: VideoHostFake, scopes: string[] = [SCOPES.upload, SCOPES.forceSsl]): Promise<AuthStart> {
  const oauth2 = oauthClient(fake);
  const { codeVerifier, codeChallenge } = await oauth2.generateCodeVerifierAsync();
  const authUrl = oauth2.generateAuthUrl({
    access_type: 'offline',
    prompt: 'consent',
    scope: scopes,
    state: 'state-123',
    code_challenge: codeChallenge as string,
    code_challenge_method: CodeChallengeMethod.S256,
  });
  return { oauth2, authUrl, codeVerifier };
}

export interface Connected {
  oauth2: OAuth2Client;
  yt: youtube_v3.Youtube;
  refreshToken: string;
}

/** Consent as `user`, exchange the code, and return clients holding the tokens. */
export async function connect(fake: VideoHostFake, opts: { user?: FakeUser; scopes?: string[] } = {}): Promise<Connected> {
  const { oauth2, authUrl, codeVerifier } = await startAuth(fake, opts.scopes);
  const back = new URL(fake.consent(authUrl, opts.user ? { user: opts.user } : {}));
  const { tokens } = await oauth2.getToken({ code: back.searchParams.get('code') ?? '', codeVerifier });
  oauth2.setCredentials(tokens);
  return { oauth2, yt: youtube({ version: 'v3', auth: oauth2, rootUrl: `${fake.url}/` }), refreshToken: tokens.refresh_token ?? '' };
}

/** Step 1 of the resumable protocol: POST the metadata, get the session URI. */
export async function openSession(fake: VideoHostFake, token: string, total: number, title = 'Chunked upload'): Promise<Response> {
  return fetch(`${fake.url}/upload/youtube/v3/videos?uploadType=resumable&part=snippet,status`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json; charset=UTF-8',
      'x-upload-content-length': String(total),
      'x-upload-content-type': 'video/mp4',
    },
    body: JSON.stringify({ snippet: { title, description: 'made by the fake test' }, status: { privacyStatus: 'private' } }),
  });
}

/** A chunk PUT (`Content-Range: bytes first-last/total`), or a status query when `chunk` is omitted. */
export function putRange(session: string, total: number, first?: number, chunk?: Uint8Array): Promise<Response> {
  const range = chunk && first !== undefined ? `bytes ${first}-${first + chunk.length - 1}/${total}` : `bytes */${total}`;
  return fetch(session, { method: 'PUT', headers: { 'content-range': range }, body: chunk ? new Uint8Array(chunk) : new Uint8Array(0) });
}

/** Pseudo-random media of a given size (deterministic, so hashes can be compared). */
export function media(size: number, seed = 7): Buffer {
  const out = Buffer.alloc(size);
  let x = seed;
  for (let i = 0; i < size; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    out[i] = x >> 16;
  }
  return out;
}
