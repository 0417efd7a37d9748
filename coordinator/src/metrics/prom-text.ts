/**
 * A reader of the Prometheus text format (0.0.4), small and strict enough for the tests that
 * scrape /metrics and check the Grafana dashboard against it. No package for it is installed; this
 * reads what prom-client writes (HELP, TYPE, samples with escaped label values, no timestamps).
 */

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  /** Family name → its TYPE (counter, gauge, histogram, summary, untyped). */
  types: Map<string, string>;
  samples: Sample[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;

export function parsePromText(text: string): Exposition {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  for (const [i, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (!line) continue;
    if (line.startsWith('#')) {
      const m = /^#\s+TYPE\s+(\S+)\s+(\S+)$/.exec(line);
      if (m) types.set(m[1]!, m[2]!);
      continue;
    }
    const name = NAME.exec(line)?.[0];
    if (!name) throw new Error(`line ${i + 1}: no metric name: ${line}`);
    let rest = line.slice(name.length);
    const labels: Record<string, string> = {};
    if (rest.startsWith('{')) {
      let j = 1;
      while (rest[j] !== '}') {
        const key = /^[a-zA-Z_][a-zA-Z0-9_]*/.exec(rest.slice(j))?.[0];
        if (!key || rest[j + key.length] !== '=' || rest[j + key.length + 1] !== '"') throw new Error(`line ${i + 1}: bad label at ${j}: ${line}`);
        j += key.length + 2;
        let value = '';
        while (rest[j] !== '"') {
          if (j >= rest.length) throw new Error(`line ${i + 1}: unterminated label value: ${line}`);
          if (rest[j] === '\\') {
            const next = rest[j + 1];
            value += next === 'n' ? '\n' : (next ?? '');
            j += 2;
          } else value += rest[j++];
        }
        labels[key] = value;
        j++;
        if (rest[j] === ',') j++;
      }
      rest = rest.slice(j + 1);
    }
    const valueText = rest.trim().split(/\s+/)[0];
    if (valueText === undefined || valueText === '') throw new Error(`line ${i + 1}: no value: ${line}`);
    samples.push({ name, labels, value: parseValue(valueText, i + 1) });
  }
  return { types, samples };
}

/** A sample value: a float, or NaN / +Inf / -Inf in any case (Prometheus reads them so; prom-client writes `Nan`). */
function parseValue(text: string, line: number): number {
  const special: Record<string, number> = {
    nan: Number.NaN,
    '+inf': Number.POSITIVE_INFINITY,
    inf: Number.POSITIVE_INFINITY,
    '-inf': Number.NEGATIVE_INFINITY,
  };
  const lower = text.toLowerCase();
  if (lower in special) return special[lower]!;
  const value = Number(text);
  if (Number.isNaN(value)) throw new Error(`line ${line}: bad value ${text}`);
  return value;
}

/** The samples of one name whose labels include `match`. */
export function samplesOf(e: Exposition, name: string, match: Record<string, string> = {}): Sample[] {
  return e.samples.filter((s) => s.name === name && Object.entries(match).every(([k, v]) => s.labels[k] === v));
}

/** Every series name a family exposes: the name itself, and for histograms and summaries their _bucket/_sum/_count. */
export function exposedNames(e: Exposition): Set<string> {
  const names = new Set<string>();
  for (const [family, type] of e.types) {
    names.add(family);
    if (type === 'histogram') for (const s of ['_bucket', '_sum', '_count']) names.add(family + s);
    if (type === 'summary') for (const s of ['_sum', '_count']) names.add(family + s);
  }
  for (const s of e.samples) names.add(s.name);
  return names;
}

/** The metric names a PromQL expression reads (every identifier with the given prefix outside label matchers' values). */
export function promqlMetricNames(expr: string, prefix = 'cutroom_'): string[] {
  // Label values ("...") never name a metric: drop them first.
  const bare = expr.replace(/"(?:[^"\\]|\\.)*"/g, '""');
  const found = bare.match(new RegExp(`\\b${prefix}[a-zA-Z0-9_:]*`, 'g')) ?? [];
  return [...new Set(found)];
}
