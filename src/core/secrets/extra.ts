// Detectors the secretlint preset does not have (checked against @secretlint/secretlint-rule-preset-
// recommend 13.1): Google API keys (AIza…, which Google AI keys are), Azure storage keys,
// client secrets and SAS URLs, OpenAI project keys in a shape the preset's rule does not accept,
// and `.env`-style assignments of a secret-looking value to a secret-sounding name. Everything else
// is the preset's.
import type { SecretKind } from './kinds';

export interface ExtraHit {
  rule: string;
  message_id: string;
  kind: SecretKind;
  label: string;
  /** Where the secret itself (not its name) is in the text. */
  start: number;
  end: number;
}

interface Pattern {
  id: string;
  kind: SecretKind;
  label: string;
  re: RegExp;
  /** Capture group holding the secret (0 = the whole match). */
  group: number;
}

const PATTERNS: Pattern[] = [
  {
    id: 'google-api-key',
    kind: 'google-api-key',
    label: 'Google API key (Google AI / Cloud)',
    re: /(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{35}(?![A-Za-z0-9_-])/g,
    group: 0,
  },
  {
    id: 'azure-storage-key',
    kind: 'azure',
    label: 'Azure storage account key',
    re: /AccountKey=([A-Za-z0-9+/]{86}==)/g,
    group: 1,
  },
  {
    id: 'azure-shared-access-key',
    kind: 'azure',
    label: 'Azure shared access key (Service Bus / Event Hubs / IoT)',
    re: /SharedAccessKey=([A-Za-z0-9+/]{43}=)/g,
    group: 1,
  },
  {
    // Entra ID (Azure AD) client secrets since 2022: three characters, a digit, "Q~", then 31-34.
    id: 'azure-client-secret',
    kind: 'azure',
    label: 'Azure (Entra ID) client secret',
    re: /(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.-]{3}\dQ~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])/g,
    group: 0,
  },
  {
    id: 'azure-sas-url',
    kind: 'azure',
    label: 'Azure SAS token (signed URL)',
    re: /https:\/\/[a-z0-9-]{3,63}\.(?:blob|file|queue|table|dfs)\.core\.windows\.net\/[^\s"'<>]{0,1000}?[?&]sig=([A-Za-z0-9%+/=]{30,})/g,
    group: 1,
  },
  {
    // The preset's OpenAI rule wants the T3BlbkFJ marker at a fixed place; keys of other lengths
    // with these prefixes are still OpenAI keys.
    id: 'openai-key',
    kind: 'openai',
    label: 'OpenAI API key',
    re: /(?<![A-Za-z0-9_-])sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,}(?![A-Za-z0-9_-])/g,
    group: 0,
  },
];

export const EXTRA_RULE_PREFIX = 'brain/';

/** Names that hold secrets, matched on the name's end (snake_case, camelCase folded). Glued names
 * count too (PGPASSWORD, csrftoken), except "pass", which ends too many words (bypass). */
const SECRET_NAME =
  /(?:(?:^|_)(?:api_?key|apikey|secret_?key|client_?secret|access_?key|private_?key|signing_?key|encryption_?key|master_?key|pass)|secret|token|password|passwd|pwd|passphrase|credentials?)$/;

/** `NAME=value`, `NAME: value`, `"name": "value"`, `export NAME="value"`, `name := value`. */
const ASSIGN_RE = /(?<![A-Za-z0-9_.-])([A-Za-z_][A-Za-z0-9_.-]{0,80})(["']?)[ \t]*(?::=|=|:)[ \t]*(["'`]?)([^\s"'`,;()<>[\]{}\\]{8,256})/g;

const PLACEHOLDER =
  /x{4,}|X{4,}|\*{3,}|\.{3}|•|your|example|sample|dummy|fake|placeholder|changeme|change_me|redacted|replace|insert|default|secret|password|passw|token|test|here/i;

/** Does this look like a value someone generated (not a reference, a word, a path or a placeholder)? */
export function looksSecret(v: string, isPassword: boolean): boolean {
  if (v.length < (isPassword ? 8 : 12)) return false;
  if (/^[$%&@*#!?:=+-]/.test(v)) return false; // shell/template references, flags, operators
  if (/\$\{|\{\{|%\(|process\.env|environ|getenv|ENV\[|secrets\.|vault:|op:\/\//i.test(v)) return false;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(v)) return false; // URLs: credentials in URLs are the preset's
  if (/^[/~.]/.test(v) || /^[A-Za-z]:\\/.test(v) || /^[\w.-]+\/[\w./-]+$/.test(v)) return false; // paths
  if (/^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+$/.test(v)) return false; // a.b.c identifiers
  if (/^[A-Za-z]+(?:[_-][A-Za-z]+)*$/.test(v)) return false; // words, snake/kebab/camel names
  if (/^[\d.:_-]+$/.test(v)) return false; // numbers, versions, times
  if (/^(?:true|false|null|none|nil|undefined)$/i.test(v)) return false;
  if (PLACEHOLDER.test(v)) return false;
  let lower = 0;
  let upper = 0;
  let digit = 0;
  let other = 0;
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i);
    if (c >= 97 && c <= 122) lower = 1;
    else if (c >= 65 && c <= 90) upper = 1;
    else if (c >= 48 && c <= 57) digit = 1;
    else other = 1;
  }
  const classes = lower + upper + digit + other;
  const h = entropy(v);
  if (v.length >= 16) return classes >= 2 && h >= 3.0;
  return classes >= 3 && h >= 2.5;
}

/** Shannon entropy in bits per character. */
export function entropy(s: string): number {
  const counts = new Map<string, number>();
  for (const ch of s) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let h = 0;
  const n = s.length;
  for (const c of counts.values()) {
    const p = c / n;
    h -= p * Math.log2(p);
  }
  return h;
}

/** camelCase → snake_case, lowercased: apiKey → api_key, DB_PASSWORD → db_password. */
function foldName(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[.-]/g, '_')
    .toLowerCase();
}

function envAssignments(text: string, out: ExtraHit[]): void {
  ASSIGN_RE.lastIndex = 0;
  for (let m = ASSIGN_RE.exec(text); m; m = ASSIGN_RE.exec(text)) {
    const name = foldName(m[1]);
    const nm = SECRET_NAME.exec(name);
    if (!nm) continue;
    // An unquoted lowercase `name: value` is prose or a type annotation far more often than a
    // credential; lowercase names count only in quoted (JSON, YAML, code) or `=` assignments.
    const op = m[0].slice(m[1].length + m[2].length).trimStart()[0];
    if (m[1] === m[1].toLowerCase() && op === ':' && !m[2] && !m[3]) continue;
    const value = m[4];
    const isPassword = /pass|pwd/.test(nm[0]);
    if (!looksSecret(value, isPassword)) continue;
    const start = m.index + m[0].length - value.length;
    out.push({
      rule: `${EXTRA_RULE_PREFIX}env-assignment`,
      message_id: 'EnvAssignment',
      kind: 'env-assignment',
      label: `${m[1]} assignment`,
      start,
      end: start + value.length,
    });
  }
}

/** Whole tokens of the kinds that announce themselves, by prefix: what a split or base64-encoded
 * piece must be once joined or decoded to count. */
const TOKENS: { re: RegExp; kind: SecretKind; label: string }[] = [
  { re: /^sk-ant-(?:api|admin)\d\d-[A-Za-z0-9_-]{80,}$/, kind: 'anthropic', label: 'Anthropic API key' },
  { re: /^sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,}$|^sk-[A-Za-z0-9]{40,}$/, kind: 'openai', label: 'OpenAI API key' },
  { re: /^gh[pousr]_[A-Za-z0-9]{36,}$|^github_pat_[A-Za-z0-9_]{60,}$/, kind: 'github', label: 'GitHub token' },
  { re: /^xox[abpors]-[A-Za-z0-9-]{20,}$/, kind: 'slack', label: 'Slack token' },
  { re: /^A[KS]IA[A-Z0-9]{16}$/, kind: 'aws', label: 'AWS access key id' },
  { re: /^AIza[0-9A-Za-z_-]{35}$/, kind: 'google-api-key', label: 'Google API key' },
  { re: /^hf_[A-Za-z]{34,}$/, kind: 'huggingface', label: 'Hugging Face token' },
  { re: /^(?:glpat-[A-Za-z0-9_-]{20,}|npm_[A-Za-z0-9]{36,}|sk_live_[A-Za-z0-9]{24,})$/, kind: 'other', label: 'API token' },
];
const TOKEN_START = /(?<![A-Za-z0-9_-])(?:sk-|sk_live_|gh[pousr]_|github_pat_|glpat-|xox[abpors]-|A[KS]IA|AIza|hf_|npm_)[A-Za-z0-9_-]{4,}/g;

function tokenKind(t: string): { kind: SecretKind; label: string } | null {
  for (const k of TOKENS) if (k.re.test(t)) return k;
  return null;
}

/** A token broken over two lines (a terminal's wrap, a paste): its first piece starts like a
 * token and ends the line, the next line goes on with token characters, and joined they are one. */
function splitTokens(text: string, out: ExtraHit[]): void {
  TOKEN_START.lastIndex = 0;
  for (let m = TOKEN_START.exec(text); m; m = TOKEN_START.exec(text)) {
    const brk = /^\r?\n[ \t]*([A-Za-z0-9_-]{4,})/.exec(text.slice(m.index + m[0].length, m.index + m[0].length + 400));
    if (!brk) continue;
    const joined = m[0] + brk[1];
    const k = tokenKind(joined);
    if (!k) continue;
    out.push({ rule: `${EXTRA_RULE_PREFIX}split-token`, message_id: 'split-token', kind: k.kind, label: `${k.label} split over two lines`, start: m.index, end: m.index + m[0].length + brk[0].length });
  }
}

/** JSON Web Tokens: header and payload are base64url JSON ("eyJ"), then a signature. */
const JWT_RE = /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}(?![A-Za-z0-9_-])/g;

/** The base64 of each token prefix (from the token's first byte), which a base64-encoded token's
 * text starts with. Kept in step with the prefilter's literals. */
export const BASE64_TOKEN_STARTS = ['sk-', 'sk_live_', 'ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_', 'github_pat_', 'glpat-', 'xoxb-', 'xoxp-', 'AKIA', 'ASIA', 'AIza', 'hf_', 'npm_'].map((p) =>
  Buffer.from(p).toString('base64').slice(0, Math.floor((p.length * 4) / 3)),
);
const BASE64_RUN = /(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{24,}={0,2}(?![A-Za-z0-9+/_-])/g;

/** A token written as base64 (a Kubernetes secret, a config blob): decoded, it is one. */
function base64Tokens(text: string, out: ExtraHit[]): void {
  BASE64_RUN.lastIndex = 0;
  for (let m = BASE64_RUN.exec(text); m; m = BASE64_RUN.exec(text)) {
    const run = m[0];
    if (!BASE64_TOKEN_STARTS.some((p) => run.startsWith(p))) continue;
    const decoded = Buffer.from(run.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('latin1').replace(/[\r\n]+$/, '');
    const k = tokenKind(decoded);
    if (!k) continue;
    out.push({ rule: `${EXTRA_RULE_PREFIX}base64-token`, message_id: 'base64-token', kind: k.kind, label: `${k.label}, base64-encoded`, start: m.index, end: m.index + run.length });
  }
}

/** Runs the project's own detectors on one decoded text. */
export function extraHits(text: string): ExtraHit[] {
  const out: ExtraHit[] = [];
  JWT_RE.lastIndex = 0;
  for (let m = JWT_RE.exec(text); m; m = JWT_RE.exec(text)) {
    out.push({ rule: `${EXTRA_RULE_PREFIX}jwt`, message_id: 'jwt', kind: 'other', label: 'JSON Web Token', start: m.index, end: m.index + m[0].length });
  }
  splitTokens(text, out);
  base64Tokens(text, out);
  for (const p of PATTERNS) {
    p.re.lastIndex = 0;
    for (let m = p.re.exec(text); m; m = p.re.exec(text)) {
      const g = m[p.group];
      const start = m.index + (p.group === 0 ? 0 : m[0].lastIndexOf(g));
      out.push({ rule: `${EXTRA_RULE_PREFIX}${p.id}`, message_id: p.id, kind: p.kind, label: p.label, start, end: start + g.length });
    }
  }
  envAssignments(text, out);
  return out;
}
