// Checks a tool input against its JSON Schema (the small subset the recall schemas use), so the
// CLI, MCP and LM tools refuse the same inputs with the same message.
import { BrainError } from '../errors';

type S = Record<string, unknown>;

function typeOk(v: unknown, t: unknown): boolean {
  switch (t) {
    case 'string':
      return typeof v === 'string';
    case 'integer':
      return typeof v === 'number' && Number.isInteger(v);
    case 'number':
      return typeof v === 'number' && Number.isFinite(v);
    case 'boolean':
      return typeof v === 'boolean';
    case 'object':
      return typeof v === 'object' && v !== null && !Array.isArray(v);
    default:
      return true;
  }
}

function check(v: unknown, s: S, at: string): void {
  if (!typeOk(v, s.type)) throw new BrainError('usage', `${at || 'the input'} must be ${s.type === 'integer' ? 'an integer' : `${/^[aeiou]/.test(String(s.type)) ? 'an' : 'a'} ${s.type}`}, got ${JSON.stringify(v)}`);
  if (typeof v === 'string') {
    if (typeof s.minLength === 'number' && v.length < s.minLength) throw new BrainError('usage', `${at} must not be empty`);
    if (typeof s.pattern === 'string' && !new RegExp(s.pattern).test(v)) {
      throw new BrainError('usage', `${at} ${JSON.stringify(v)} does not have the expected form`, s.description ? String(s.description) : undefined);
    }
  }
  if (typeof v === 'number') {
    if (typeof s.minimum === 'number' && v < s.minimum) throw new BrainError('usage', `${at} must be at least ${s.minimum}, got ${v}`);
    if (typeof s.maximum === 'number' && v > s.maximum) throw new BrainError('usage', `${at} must be at most ${s.maximum}, got ${v}`);
  }
  if (s.type === 'object' && typeof v === 'object' && v !== null) {
    const props = (s.properties ?? {}) as Record<string, S>;
    const o = v as Record<string, unknown>;
    for (const r of (s.required ?? []) as string[]) {
      if (o[r] === undefined) throw new BrainError('usage', `${at ? `${at}.` : ''}${r} is required`);
    }
    for (const [k, x] of Object.entries(o)) {
      if (x === undefined) continue;
      const ps = props[k];
      if (!ps) {
        if (s.additionalProperties === false) throw new BrainError('usage', `unknown field ${at ? `${at}.` : ''}${k}`, `known: ${Object.keys(props).join(', ')}`);
        continue;
      }
      check(x, ps, at ? `${at}.${k}` : k);
    }
  }
}

/** Throws a usage BrainError naming the first field that does not fit the schema. */
export function validateInput<T>(input: unknown, schema: object): T {
  check(input, schema as S, '');
  return input as T;
}
