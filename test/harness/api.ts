import { readFileSync } from 'node:fs';

/** A thin REST client for tests: every call returns {status, body, headers} and never throws on 4xx. */
export function apiClient(baseUrl: string) {
  async function call(method: string, path: string, opts: { token?: string; json?: unknown } = {}) {
    const headers: Record<string, string> = {};
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    if (opts.json !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${baseUrl}${path}`, { method, headers, body: opts.json === undefined ? undefined : JSON.stringify(opts.json) });
    const text = await res.text();
    let body: any = text;
    if ((res.headers.get('content-type') ?? '').includes('json')) body = text ? JSON.parse(text) : null;
    return { status: res.status, body, headers: res.headers };
  }
  return {
    call,
    async newSession(): Promise<string> {
      const r = await call('POST', '/api/v1/sessions');
      if (r.status !== 201) throw new Error(`POST /sessions → ${r.status}`);
      return r.body.session_token as string;
    },
    /** Creates a transcribe job, uploads the file and completes the upload; returns the job id. */
    async submitTranscribe(token: string, file: string, filename: string, contentType: string): Promise<string> {
      const created = await call('POST', '/api/v1/jobs', { token, json: { job_type: 'transcribe', filename, content_type: contentType } });
      if (created.status !== 201) throw new Error(`POST /jobs → ${created.status} ${JSON.stringify(created.body)}`);
      const id = created.body.job_id as string;
      const up = await call('GET', `/api/v1/jobs/${id}/upload-url`, { token });
      const put = await fetch(up.body.upload_url, { method: 'PUT', headers: { 'content-type': contentType }, body: readFileSync(file) });
      if (!put.ok) throw new Error(`PUT upload → ${put.status} ${await put.text()}`);
      const done = await call('POST', `/api/v1/jobs/${id}/complete-upload`, { token });
      if (done.status !== 200) throw new Error(`complete-upload → ${done.status} ${JSON.stringify(done.body)}`);
      return id;
    },
    /** Polls GET /jobs/{id} until `until(job)` or the timeout; returns the last job seen. */
    async waitForJob(token: string, id: string, until: (job: any) => boolean = (j) => ['completed', 'failed'].includes(j.status), timeoutMs = 120_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const r = await call('GET', `/api/v1/jobs/${id}`, { token });
        if (r.status !== 200) throw new Error(`GET /jobs/${id} → ${r.status}`);
        if (until(r.body)) return r.body;
        if (Date.now() > deadline) throw new Error(`job ${id} still ${r.body.status} after ${timeoutMs} ms`);
        await new Promise((res) => setTimeout(res, 250));
      }
    },
  };
}
export type ApiClient = ReturnType<typeof apiClient>;
