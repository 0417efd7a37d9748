import { describe, expect, it } from 'vitest';
import { exposedNames, parsePromText, promqlMetricNames, samplesOf } from './prom-text.ts';

describe('parsePromText', () => {
  const text = [
    '# HELP cutroom_x_total A counter.',
    '# TYPE cutroom_x_total counter',
    'cutroom_x_total{a="1",b="say \\"hi\\"\\n"} 3',
    '# TYPE cutroom_h histogram',
    'cutroom_h_bucket{le="+Inf"} 2',
    'cutroom_h_sum 1.5',
    'cutroom_h_count 2',
    '# TYPE cutroom_empty gauge',
    'cutroom_up 1',
  ].join('\n');

  it('reads samples with escaped label values, and the families with their histogram series', () => {
    const e = parsePromText(text);
    expect(samplesOf(e, 'cutroom_x_total', { a: '1' })).toEqual([{ name: 'cutroom_x_total', labels: { a: '1', b: 'say "hi"\n' }, value: 3 }]);
    expect(samplesOf(e, 'cutroom_h_bucket')[0]!.labels['le']).toBe('+Inf');
    const names = exposedNames(e);
    for (const n of ['cutroom_x_total', 'cutroom_h_bucket', 'cutroom_h_count', 'cutroom_empty', 'cutroom_up']) expect(names.has(n)).toBe(true);
  });

  it('refuses what is not the text format', () => {
    expect(() => parsePromText('cutroom_x{a=1} 2')).toThrow(/bad label/);
    expect(() => parsePromText('cutroom_x nope')).toThrow(/bad value/);
  });
});

describe('promqlMetricNames', () => {
  it('finds the metric names and not label values', () => {
    expect(promqlMetricNames('histogram_quantile(0.9, sum by (le) (rate(cutroom_a_bucket{route!~"cutroom_b.*"}[5m]))) / cutroom_c')).toEqual([
      'cutroom_a_bucket',
      'cutroom_c',
    ]);
  });
});
