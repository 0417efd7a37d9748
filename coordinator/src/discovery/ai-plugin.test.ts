import { describe, expect, it } from 'vitest';
import { aiPlugin } from './ai-plugin.ts';
import { testSite } from './test-site.ts';

describe('ai-plugin.json (OpenAI plugin manifest v1)', () => {
  const m = aiPlugin(testSite(true));

  it('keeps within the manifest limits and points at the OpenAPI document', () => {
    expect(m.schema_version).toBe('v1');
    expect(m.name_for_human.length).toBeLessThanOrEqual(20);
    expect(m.name_for_model).toMatch(/^[a-zA-Z0-9_]{1,50}$/);
    expect(m.description_for_human.length).toBeLessThanOrEqual(100);
    expect(m.description_for_model.length).toBeLessThanOrEqual(8000);
    expect(m.api).toEqual({ type: 'openapi', url: 'https://cutroom.example.com/openapi.json' });
    expect(m.auth).toMatchObject({ type: 'user_http', authorization_type: 'bearer' });
    expect(m.logo_url).toBe('https://cutroom.example.com/logo.png');
  });

  it('tells the model which call comes first: find_clips before transcribe for clips, no re-upload for cuts', () => {
    const d = m.description_for_model;
    expect(d).toMatch(/START with a find_clips job/);
    expect(d).toMatch(/never run transcribe first/);
    expect(d).toMatch(/WITHOUT re-uploading/);
    expect(d.indexOf('POST https://cutroom.example.com/api/v1/sessions')).toBeGreaterThan(-1);
    expect(d).toContain('clips_from_video');
  });

  it('takes contact and terms from the configuration, with defaults from the public URL', () => {
    expect(m).toMatchObject({ contact_email: 'support@cutroom.example.com', legal_info_url: 'https://cutroom.example.com/docs#terms' });
    const set = aiPlugin(testSite(true, { CONTACT_EMAIL: 'ops@example.org', LEGAL_INFO_URL: 'https://example.org/terms' }));
    expect(set).toMatchObject({ contact_email: 'ops@example.org', legal_info_url: 'https://example.org/terms' });
    expect(aiPlugin(testSite(false, { PUBLIC_BASE_URL: 'http://127.0.0.1:8080' })).contact_email).toBe('support@cutroom.localhost');
    expect(() => testSite(true, { CONTACT_EMAIL: 'not an address' })).toThrow(/CONTACT_EMAIL/);
    expect(() => testSite(true, { LEGAL_INFO_URL: 'terms.html' })).toThrow(/LEGAL_INFO_URL/);
  });
});
