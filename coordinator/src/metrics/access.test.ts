import { describe, expect, it } from 'vitest';
import { metricsAccess } from './access.ts';
import { methodLabel, routeLabel, statusClass } from './http.ts';

describe('metricsAccess', () => {
  const prod = { METRICS_TOKEN: undefined, DATABASE_URL: 'postgres://db/cutroom', HOST: '0.0.0.0', PUBLIC_BASE_URL: undefined };
  it('asks every listener for the token when one is set', () => {
    const config = { ...prod, METRICS_TOKEN: 'a-metrics-token-0123' };
    expect(metricsAccess(config, 'public')).toBe('token');
    expect(metricsAccess(config, 'agent')).toBe('token');
  });
  it('without a token serves the agent listener, and the public one only in the embedded default on loopback', () => {
    expect(metricsAccess(prod, 'agent')).toBe('open');
    expect(metricsAccess(prod, 'public')).toBe('off');
    expect(metricsAccess({ ...prod, HOST: '127.0.0.1' }, 'public')).toBe('off');
    expect(metricsAccess({ ...prod, DATABASE_URL: undefined }, 'public')).toBe('off');
    expect(metricsAccess({ ...prod, DATABASE_URL: undefined, HOST: '127.0.0.1' }, 'public')).toBe('open');
  });
  it('without a token, keeps the public listener closed when a public name fronts it (a reverse proxy on the same host)', () => {
    const embedded = { ...prod, DATABASE_URL: undefined, HOST: '127.0.0.1' };
    expect(metricsAccess({ ...embedded, PUBLIC_BASE_URL: 'https://clips.example.com' }, 'public')).toBe('off');
    expect(metricsAccess({ ...embedded, PUBLIC_BASE_URL: 'http://10.0.0.5:8080' }, 'public')).toBe('off');
    expect(metricsAccess({ ...embedded, PUBLIC_BASE_URL: 'http://127.0.0.1:8080' }, 'public')).toBe('open');
    expect(metricsAccess({ ...embedded, PUBLIC_BASE_URL: 'http://[::1]:8080' }, 'public')).toBe('open');
    expect(metricsAccess({ ...embedded, PUBLIC_BASE_URL: 'https://clips.example.com', METRICS_TOKEN: 'a-metrics-token-0123' }, 'public')).toBe('token');
  });
});

describe('HTTP labels', () => {
  it('never takes a raw URL, an odd method or an odd status as a label', () => {
    expect(routeLabel('/api/v1/jobs/:id')).toBe('/api/v1/jobs/:id');
    expect(routeLabel(undefined)).toBe('unmatched');
    expect(methodLabel('GET')).toBe('GET');
    expect(methodLabel('PROPFIND')).toBe('OTHER');
    expect(statusClass(204)).toBe('2xx');
    expect(statusClass(503)).toBe('5xx');
    expect(statusClass(999)).toBe('other');
  });
});
