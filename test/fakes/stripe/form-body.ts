// Stripe's request encoding: application/x-www-form-urlencoded with qs-style brackets, e.g.
// `line_items[0][price_data][unit_amount]=450&metadata[job_id]=j1`. The official client writes
// arrays as `a[0]=…&a[1]=…`; older clients and curl users also send `a[]=…`. Values stay strings:
// Stripe types them per parameter, and so do the fake's handlers (see params.ts).

export type FormValue = string | FormValue[] | FormObject;
export interface FormObject {
  [key: string]: FormValue;
}

/** A malformed body or key; the server answers it with Stripe's 400 invalid_request_error. */
export class FormParseError extends Error {
  override name = 'FormParseError';
}

// Keys that would reach Object.prototype if we assigned them on a plain object.
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** Splits `a[b][0][]` into ['a', 'b', '0', '']. */
export function splitFormKey(key: string): string[] {
  const open = key.indexOf('[');
  if (open === -1) return [key];
  const head = key.slice(0, open);
  const rest = key.slice(open);
  const segments: string[] = [head];
  const re = /\[([^[\]]*)\]/g;
  let consumed = 0;
  for (let m = re.exec(rest); m; m = re.exec(rest)) {
    if (m.index !== consumed) break;
    segments.push(m[1] ?? '');
    consumed = re.lastIndex;
  }
  if (head === '' || consumed !== rest.length) throw new FormParseError(`Invalid parameter name: ${key}`);
  return segments;
}

const isIndex = (s: string): boolean => s === '' || /^\d+$/.test(s);

/** Parses a urlencoded body (or query string) into nested objects and arrays. */
export function parseForm(body: string | URLSearchParams): FormObject {
  const params = typeof body === 'string' ? new URLSearchParams(body) : body;
  const root: FormObject = {};
  for (const [key, value] of params) assign(root, splitFormKey(key), value, key);
  checkDenseArrays(root, '');
  return root;
}

type Container = FormObject | FormValue[];

function assign(root: FormObject, segments: string[], value: string, fullKey: string): void {
  let node: Container = root;
  for (let i = 0; i < segments.length - 1; i++) {
    const key = slotKey(node, segments[i] as string, fullKey);
    const slots = node as Record<string | number, FormValue | undefined>;
    const existing = slots[key];
    if (typeof existing === 'string') throw new FormParseError(`Conflicting values for ${fullKey}`);
    // Create the container the next segment needs: an array for an index, as qs does.
    if (existing === undefined) slots[key] = isIndex(segments[i + 1] as string) ? [] : {};
    node = slots[key] as Container;
  }
  const key = slotKey(node, segments[segments.length - 1] as string, fullKey);
  const slots = node as Record<string | number, FormValue | undefined>;
  if (typeof slots[key] === 'object') throw new FormParseError(`Conflicting values for ${fullKey}`);
  slots[key] = value; // a repeated scalar key: the last one wins
}

function slotKey(node: Container, seg: string, fullKey: string): string | number {
  if (FORBIDDEN_KEYS.has(seg)) throw new FormParseError(`Invalid parameter name: ${fullKey}`);
  if (!Array.isArray(node)) {
    if (seg === '') throw new FormParseError(`Invalid parameter name: ${fullKey}`);
    return seg;
  }
  if (!isIndex(seg)) throw new FormParseError(`Invalid array parameter: ${fullKey}`);
  return seg === '' ? node.length : Number(seg);
}

// `a[1]=x` without `a[0]` is refused by Stripe ("Invalid array"); holes would otherwise turn
// into undefined entries that handlers do not expect.
function checkDenseArrays(value: FormValue, path: string): void {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      if (!(i in value)) throw new FormParseError(`Invalid array: ${path} has no entry at index ${i}`);
      checkDenseArrays(value[i] as FormValue, `${path}[${i}]`);
    }
  } else if (typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) checkDenseArrays(v, path ? `${path}[${k}]` : k);
  }
}
