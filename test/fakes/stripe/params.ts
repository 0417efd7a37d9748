// Typed reads of form parameters with Stripe's validation errors. Stripe refuses parameters it
// does not know ("Received unknown parameter"), and so does the fake: a typo in our client code
// fails here the way it would against the real API.
import { invalidParam } from './errors.ts';
import type { FormObject, FormValue } from './form-body.ts';

export function rejectUnknown(params: FormObject, allowed: readonly string[], prefix = ''): void {
  for (const key of Object.keys(params)) {
    if (!allowed.includes(key)) {
      const name = prefix ? `${prefix}[${key}]` : key;
      throw invalidParam(`Received unknown parameter: ${name}`, 'parameter_unknown', name);
    }
  }
}

const missing = (name: string) => invalidParam(`Missing required param: ${name}.`, 'parameter_missing', name);

export function readString(params: FormObject, key: string, name = key): string | undefined {
  const v = params[key];
  if (v === undefined || v === '') return undefined; // the client sends null as an empty string
  if (typeof v !== 'string') throw invalidParam(`Invalid string: ${name}`, 'parameter_invalid_string', name);
  return v;
}

export function requireString(params: FormObject, key: string, name = key): string {
  const v = readString(params, key, name);
  if (v === undefined) throw missing(name);
  return v;
}

export function readEnum<T extends string>(params: FormObject, key: string, values: readonly T[], name = key): T | undefined {
  const v = readString(params, key, name);
  if (v === undefined) return undefined;
  if (!(values as readonly string[]).includes(v)) {
    throw invalidParam(`Invalid ${name}: must be one of ${values.join(', ')}`, 'parameter_invalid_string', name);
  }
  return v as T;
}

export function readInt(params: FormObject, key: string, opts: { min?: number; name?: string } = {}): number | undefined {
  const name = opts.name ?? key;
  const v = readString(params, key, name);
  if (v === undefined) return undefined;
  if (!/^-?\d+$/.test(v) || !Number.isSafeInteger(Number(v))) {
    throw invalidParam(`Invalid integer: ${v}`, 'parameter_invalid_integer', name);
  }
  const n = Number(v);
  if (opts.min !== undefined && n < opts.min) {
    throw invalidParam(`This value must be greater than or equal to ${opts.min}.`, 'parameter_invalid_integer', name);
  }
  return n;
}

export function requireInt(params: FormObject, key: string, opts: { min?: number; name?: string } = {}): number {
  const v = readInt(params, key, opts);
  if (v === undefined) throw missing(opts.name ?? key);
  return v;
}

export function readBool(params: FormObject, key: string): boolean | undefined {
  const v = readString(params, key);
  if (v === undefined) return undefined;
  if (v !== 'true' && v !== 'false') throw invalidParam(`Invalid boolean: ${v}`, 'parameter_invalid_boolean', key);
  return v === 'true';
}

export function readObject(params: FormObject, key: string, name = key): FormObject | undefined {
  const v: FormValue | undefined = params[key];
  if (v === undefined || v === '') return undefined;
  if (typeof v !== 'object' || Array.isArray(v)) throw invalidParam(`Invalid object: ${name}`, 'parameter_invalid_object', name);
  return v;
}

export function readArray(params: FormObject, key: string, name = key): FormValue[] | undefined {
  const v = params[key];
  if (v === undefined || v === '') return undefined;
  if (!Array.isArray(v)) throw invalidParam(`Invalid array: ${name}`, 'parameter_invalid_array', name);
  return v;
}

/** Metadata: string values; an empty value unsets the key, as on Stripe. */
export function readMetadata(params: FormObject, base: Record<string, string> = {}): Record<string, string> {
  const meta = readObject(params, 'metadata');
  const out = { ...base };
  if (!meta) return out;
  for (const [k, v] of Object.entries(meta)) {
    if (typeof v !== 'string') throw invalidParam(`Invalid metadata value for ${k}`, 'parameter_invalid_string', `metadata[${k}]`);
    if (v === '') delete out[k];
    else out[k] = v;
  }
  return out;
}

/** `expand[]` names, e.g. ['latest_charge']. */
export function readExpand(params: FormObject): string[] {
  const v = params['expand'];
  if (v === undefined) return [];
  if (!Array.isArray(v) || v.some((e) => typeof e !== 'string')) throw invalidParam('Invalid array: expand', 'parameter_invalid_array', 'expand');
  return v as string[];
}
