import { type Offer, offers, priceText } from './offers.ts';
import { PATHS, type Site, url } from './site.ts';

/**
 * /.well-known/ai-plugin.json: the OpenAI plugin manifest (schema_version v1; its limits: name_for_human
 * 20 characters, name_for_model 50 letters/digits/underscores, description_for_human 100,
 * description_for_model 8000). It points a model at the REST API (the OpenAPI document); the text
 * tells it which call comes first, and the prices come from the offers list.
 *
 * auth is `user_http` bearer: every job call carries `Authorization: Bearer <session_token>`, and the
 * token comes from a free, anonymous POST /api/v1/sessions (the instructions say so).
 */

function restPrices(list: Offer[]): string {
  return list
    .filter((o) => o.rest)
    .map((o) => `${o.rest!.job_type ?? o.id}: ${priceText(o)}`)
    .join('. ');
}

export function descriptionForModel(site: Site, list: Offer[] = offers()): string {
  const api = url(site, PATHS.rest);
  const mcpOnly = list.filter((o) => !o.rest).map((o) => o.id);
  return [
    'cutroom processes audio and video files for a fee per job; no account.',
    `Start with POST ${api}/sessions (free) and send its session_token as Authorization: Bearer on every later call.`,
    'For clips from a video, START with a find_clips job (POST /jobs with job_type find_clips): it transcribes the video too, so never run transcribe first; it returns ranked clip candidates.',
    'Then cut the chosen candidates from that job WITHOUT re-uploading: POST /jobs with job_type extract_vertical_clip, extract_clip or edit_from_transcript and source_job_id = the find_clips job id (its source is kept 72 h), then POST /jobs/{id}/process; or POST /jobs/{parent_job_id}/derivatives with job_type clips_vertical for up to 5 vertical clips in one purchase (card only).',
    'Upload jobs (transcribe, summarize, find_clips): POST /jobs with filename and content_type, pay, GET /jobs/{id}/upload-url, PUT the bytes, POST /jobs/{id}/complete-upload, then poll GET /jobs/{id} (or stream GET /jobs/{id}/events) until completed and download each output.',
    'Paying: an unpaid call answers 402 with a WWW-Authenticate: Payment challenge (MPP; chain USDC or card USD) and a checkout_url for a hosted card payment; the user pays, then the same call is repeated. Failed jobs are refunded automatically.',
    `Prices: ${restPrices(list)}. Full table: ${url(site, PATHS.mpp)}.`,
    `Only through the MCP endpoint ${url(site, PATHS.mcp)}: ${mcpOnly.join(', ')}.`,
  ].join(' ');
}

export function aiPlugin(site: Site, list: Offer[] = offers()) {
  return {
    schema_version: 'v1',
    name_for_human: 'cutroom',
    name_for_model: 'cutroom',
    description_for_human: 'Transcripts, summaries and clips from your audio and video, paid per job.',
    description_for_model: descriptionForModel(site, list),
    auth: {
      type: 'user_http',
      authorization_type: 'bearer',
      instructions: `Create a session with POST ${url(site, PATHS.rest)}/sessions (no credentials, free) and use its session_token as the bearer token.`,
    },
    api: { type: 'openapi', url: url(site, PATHS.openapi) },
    logo_url: url(site, PATHS.logoPng),
    contact_email: site.contactEmail,
    legal_info_url: site.legalInfoUrl,
  };
}
