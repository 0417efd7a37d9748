import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * `.npmrc` turns every dependency's install script off with npm's own `ignore-scripts`: no npm
 * command warns about an unknown project setting, and a bare `npm ci` fetches nothing beyond the
 * lock (onnxruntime-node's postinstall would otherwise download the CUDA provider libraries from
 * nuget.org). Every install script in the lock was reviewed; a new one fails here until it is.
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Packages whose install script is reviewed as not needed (why: .npmrc). */
const REVIEWED = new Set(['esbuild', '@foundry-rs/anvil', 'core-js', 'cpu-features', 'node-llama-cpp', 'onnxruntime-node', 'protobufjs', 'ssh2']);

/** The npm on PATH, as a person would run it (npm start and npm test run under the same one). */
const npm = (args: string[], cwd: string) => spawnSync('npm', args, { cwd, encoding: 'utf8', env: { ...process.env, npm_config_loglevel: 'warn' } });

describe('npm install scripts', () => {
  it('npm reads .npmrc without a warning and runs no dependency install script', () => {
    const r = npm(['config', 'get', 'ignore-scripts'], ROOT);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe('true');
    expect(r.stderr).toBe('');
  });

  it('every package in the lock with an install script has been reviewed', () => {
    const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { hasInstallScript?: boolean }> };
    const withScripts = Object.entries(lock.packages)
      .filter(([, p]) => p.hasInstallScript)
      .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length));
    expect(withScripts.length).toBeGreaterThan(0);
    expect(withScripts.filter((name) => !REVIEWED.has(name))).toEqual([]);
  });

  it('a bare install of onnxruntime-node under this .npmrc leaves its CUDA download out and its CPU binding working', () => {
    const locked = (JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version: string }> }).packages[
      'node_modules/onnxruntime-node'
    ]!.version;
    const dir = mkdtempSync(join(tmpdir(), 'cutroom-npmrc-'));
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'npmrc-check', private: true, dependencies: { 'onnxruntime-node': locked } }));
    writeFileSync(join(dir, '.npmrc'), readFileSync(join(ROOT, '.npmrc')));
    const r = npm(['install', '--prefer-offline', '--no-package-lock'], dir);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/Unknown (project|user|env) config/);
    const bin = join(dir, 'node_modules', 'onnxruntime-node', 'bin', 'napi-v6', 'linux', 'x64');
    expect(existsSync(join(bin, 'libonnxruntime.so.1'))).toBe(true);
    expect(existsSync(join(bin, 'libonnxruntime_providers_cuda.so'))).toBe(false);
    const out = execFileSync(process.execPath, ['-e', "console.log(require('onnxruntime-node').listSupportedBackends().map((b) => b.name).join(','))"], {
      cwd: dir,
      encoding: 'utf8',
    });
    expect(out).toMatch(/\bcpu\b/);
  }, 120_000);
});
