import { describe, expect, it } from 'vitest';
import { DEFAULT_URL, loadSettings, normalizeUrl } from './config.ts';
import { CliError } from './errors.ts';

describe('loadSettings', () => {
  it('defaults to the npm start address and the XDG config dir', () => {
    const s = loadSettings({ XDG_CONFIG_HOME: '/x/config' }, undefined, true);
    expect(s).toMatchObject({ baseUrl: DEFAULT_URL, configDir: '/x/config/cutroom', walletKey: undefined, maxPayment: '5', progress: 'bars', events: 'sse' });
    expect(loadSettings({}, undefined, false).progress).toBe('plain');
  });
  it('lets --url win over CUTROOM_URL and reads the payment settings', () => {
    const key = `0x${'ab'.repeat(32)}`;
    const s = loadSettings(
      {
        CUTROOM_URL: 'http://env:1/',
        CUTROOM_CONFIG_DIR: '/c',
        CUTROOM_WALLET_KEY: key,
        CUTROOM_TOKEN_NAME: 'T',
        CUTROOM_PAY_TIMEOUT: '60',
        CUTROOM_EVENTS: 'poll',
      },
      'https://flag:2/base/',
      true,
    );
    expect(s).toMatchObject({
      baseUrl: 'https://flag:2/base',
      configDir: '/c',
      walletKey: key,
      tokenDomain: { name: 'T', version: undefined },
      payTimeoutMs: 60_000,
      events: 'poll',
    });
  });
  it('refuses bad values without echoing a key', () => {
    const bad = (env: NodeJS.ProcessEnv) => () => loadSettings(env, undefined, true);
    expect(bad({ CUTROOM_WALLET_KEY: '0xsecret' })).toThrow(CliError);
    expect(bad({ CUTROOM_WALLET_KEY: '0xsecret' })).not.toThrow(/secret/);
    expect(bad({ CUTROOM_MAX_PAYMENT: 'lots' })).toThrow(/CUTROOM_MAX_PAYMENT/);
    expect(bad({ CUTROOM_PROGRESS: 'fancy' })).toThrow(/CUTROOM_PROGRESS/);
    expect(() => normalizeUrl('ftp://x')).toThrow(/http or https/);
    expect(() => normalizeUrl('not a url')).toThrow(/not a URL/);
  });
});
