// Fake credentials in the formats real ones have, generated at test time from a fixed seed (built by
// concatenation: no key-shaped string is committed), and sessions shaped like the fixtures that
// carry them in the places agents put them: a pasted prompt, a tool call's arguments, a tool's
// output (a .env file, a service-account JSON, a PEM), nested JSON strings.
import type { SecretKind } from '../../../src/core/secrets/kinds';

export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const DIGITS = '0123456789';
const ALNUM = UPPER + LOWER + DIGITS;
const B64 = ALNUM + '+/';
const URLSAFE = ALNUM + '_-';

export interface Planted {
  name: string;
  kind: SecretKind;
  /** The whole credential as it would be pasted. */
  secret: string;
  /** The random part: no window of it may appear in anything the guard writes or prints. */
  body: string;
  /** What the guard's preview is computed from (the PEM body for private keys). */
  masked: string;
}

/** Every kind the guard must find, with fresh random bodies. */
export function plantedKeys(seed = 7): Planted[] {
  const r = rng(seed);
  const pick = (set: string, n: number) => {
    let s = '';
    for (let i = 0; i < n; i++) s += set[Math.floor(r() * set.length)];
    return s;
  };
  // Mixed classes and no placeholder words, so the .env checks see a generated value.
  const strong = (n: number) => {
    for (;;) {
      const v = pick(ALNUM, n - 3) + pick('#%^', 1) + pick(DIGITS, 1) + pick(UPPER, 1);
      if (!/test|here|pass|token|secret|default|example|sample|your|fake|dummy/i.test(v)) return v;
    }
  };
  const p = (name: string, kind: SecretKind, prefix: string, body: string, suffix = ''): Planted => {
    const secret = prefix + body + suffix;
    return { name, kind, secret, body, masked: secret };
  };
  const pemBody = (magic: string) => magic + pick(B64, 1200);
  const pem = (label: string, body: string) => {
    const lines = body.match(/.{1,64}/g) ?? [];
    return `-----BEGIN ${label}PRIVATE KEY-----\n${lines.join('\n')}\n-----END ${label}PRIVATE KEY-----\n`;
  };
  const out: Planted[] = [];
  out.push(p('aws-access-key-id', 'aws', 'AK' + 'IA', pick(UPPER + '234567', 16)));
  out.push(p('aws-secret-access-key', 'aws', '', pick(B64, 40)));
  {
    const body = pemBody('MIIEv' + 'QIBADANBgkqhkiG9w0BAQEFAASC');
    out.push({ name: 'gcp-service-account', kind: 'gcp', secret: pem('', body), body: body.slice(40), masked: body });
  }
  out.push(p('azure-storage-key', 'azure', '', pick(B64, 86), '=='));
  out.push(p('azure-client-secret', 'azure', pick(ALNUM, 3) + pick(DIGITS, 1) + 'Q' + '~', pick(ALNUM + '_.-', 34)));
  out.push(p('openai', 'openai', 'sk-' + 'proj-', pick(URLSAFE, 74) + 'T3Blbk' + 'FJ' + pick(URLSAFE, 74)));
  out.push(p('anthropic', 'anthropic', 'sk-' + 'ant-api03-', pick(URLSAFE, 93), 'A' + 'A'));
  out.push(p('google-api-key', 'google-api-key', 'AI' + 'za', pick(URLSAFE, 35)));
  out.push(p('huggingface', 'huggingface', 'h' + 'f_', pick(UPPER + LOWER, 34)));
  out.push(p('github-classic', 'github', 'gh' + 'p_', pick(ALNUM, 36)));
  out.push(p('github-fine-grained', 'github', 'github' + '_pat_', pick(ALNUM, 22) + '_' + pick(ALNUM, 59)));
  out.push(p('slack-bot', 'slack', 'xo' + 'xb-', pick(DIGITS, 12) + '-' + pick(DIGITS, 13) + '-' + pick(ALNUM, 24)));
  {
    const body = pemBody('b3BlbnNzaC1rZXktdjE' + 'AAAAA');
    out.push({ name: 'openssh-private-key', kind: 'private-key', secret: pem('OPENSSH ', body), body: body.slice(40), masked: body });
  }
  out.push(p('env-password', 'env-assignment', '', strong(22)));
  out.push(p('env-api-key', 'env-assignment', '', strong(32)));
  return out;
}

export function byName(keys: Planted[], name: string): Planted {
  const k = keys.find((x) => x.name === name);
  if (!k) throw new Error(`no planted key ${name}`);
  return k;
}

/** One line of a session and the planted keys it carries. */
export interface PlantedLine {
  text: string;
  keys: Planted[];
}

/** A Claude Code session: lines shaped like test/fixtures/claude, each carrying some keys. */
export function ccSession(keys: Planted[], sessionId: string): PlantedLine[] {
  const k = (n: string) => byName(keys, n);
  let ts = Date.UTC(2026, 0, 5, 10, 0, 0);
  let parent: string | null = null;
  let n = 0;
  const base = (type: string, message: unknown) => {
    const uuid = `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
    const line = { parentUuid: parent, isSidechain: false, userType: 'external', cwd: '/work/proj', sessionId, version: '2.1.0', gitBranch: 'main', type, message, uuid, timestamp: new Date((ts += 1000)).toISOString() };
    parent = uuid;
    return JSON.stringify(line);
  };
  const user = (content: unknown) => base('user', { role: 'user', content });
  const assistant = (content: unknown) => base('assistant', { id: `msg_${n}`, type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content, stop_reason: null, usage: { input_tokens: 10, output_tokens: 5 } });
  const dotenv = [
    'NODE_ENV=production',
    `AWS_ACCESS_KEY_ID=${k('aws-access-key-id').secret}`,
    `AWS_SECRET_ACCESS_KEY=${k('aws-secret-access-key').secret}`,
    `DB_PASSWORD=${k('env-password').secret}`,
    'LOG_LEVEL=debug',
  ].join('\n');
  const sa = JSON.stringify(
    {
      type: 'service_account',
      project_id: 'demo-project',
      private_key_id: '0123456789abcdef0123456789abcdef01234567',
      private_key: k('gcp-service-account').secret,
      client_email: 'ci@demo-project.iam.gserviceaccount.com',
    },
    null,
    2,
  );
  return [
    { text: user('Set up the deploy for me.'), keys: [] },
    { text: assistant([{ type: 'tool_use', id: 'toolu_01', name: 'Read', input: { file_path: '/work/proj/.env' } }]), keys: [] },
    { text: user([{ tool_use_id: 'toolu_01', type: 'tool_result', content: dotenv }]), keys: [k('aws-access-key-id'), k('aws-secret-access-key'), k('env-password')] },
    { text: user([{ tool_use_id: 'toolu_02', type: 'tool_result', content: sa }]), keys: [k('gcp-service-account')] },
    { text: user(`here is my key ${k('openai').secret} use it for the eval`), keys: [k('openai')] },
    {
      text: assistant([{ type: 'tool_use', id: 'toolu_03', name: 'Bash', input: { command: `curl -H "x-api-key: ${k('anthropic').secret}" https://api.anthropic.com/v1/models` } }]),
      keys: [k('anthropic')],
    },
    { text: assistant([{ type: 'text', text: 'Done: the models are listed.' }]), keys: [] },
    {
      text: user([{ tool_use_id: 'toolu_04', type: 'tool_result', content: `-----\n${k('openssh-private-key').secret}` }]),
      keys: [k('openssh-private-key')],
    },
  ];
}

/** A Codex rollout: function_call arguments are a JSON string inside the JSON line. */
export function codexSession(keys: Planted[]): PlantedLine[] {
  const k = (n: string) => byName(keys, n);
  let ts = Date.UTC(2026, 0, 6, 9, 0, 0);
  const line = (type: string, payload: unknown) => JSON.stringify({ timestamp: new Date((ts += 1000)).toISOString(), type, payload });
  const conn = `DefaultEndpointsProtocol=https;AccountName=demoacct;AccountKey=${k('azure-storage-key').secret};EndpointSuffix=core.windows.net`;
  return [
    { text: line('session_meta', { id: '019c0000-0000-7000-8000-000000000001', timestamp: new Date(ts).toISOString(), cwd: '/work/proj', originator: 'codex_cli_rs', cli_version: '0.171.0' }), keys: [] },
    { text: line('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Wire the storage account.' }] }), keys: [] },
    {
      text: line('response_item', { type: 'function_call', name: 'exec_command', arguments: JSON.stringify({ cmd: `az storage blob list --connection-string "${conn}"` }), call_id: 'call_1' }),
      keys: [k('azure-storage-key')],
    },
    {
      text: line('response_item', { type: 'function_call_output', call_id: 'call_1', output: JSON.stringify({ output: `AZURE_CLIENT_SECRET=${k('azure-client-secret').secret}\n`, metadata: { exit_code: 0 } }) }),
      keys: [k('azure-client-secret')],
    },
    { text: line('event_msg', { type: 'agent_message', message: `Set GEMINI key ${k('google-api-key').secret} in the env.` }), keys: [k('google-api-key')] },
  ];
}

/** A Pi session: content arrays of text parts and tool calls with object arguments. */
export function piSession(keys: Planted[]): PlantedLine[] {
  const k = (n: string) => byName(keys, n);
  let ts = Date.UTC(2026, 0, 7, 8, 0, 0);
  let id = 0;
  let parent: string | null = null;
  const msg = (message: unknown) => {
    const me = `pi${String(++id).padStart(6, '0')}`;
    const l = JSON.stringify({ type: 'message', id: me, parentId: parent, timestamp: new Date((ts += 1000)).toISOString(), message });
    parent = me;
    return l;
  };
  return [
    { text: JSON.stringify({ type: 'session', version: 3, id: 'pi-planted-1', timestamp: new Date(ts).toISOString(), cwd: '/work/proj' }), keys: [] },
    { text: msg({ role: 'user', content: [{ type: 'text', text: `push with ${k('github-classic').secret} and pull with ${k('github-fine-grained').secret}` }] }), keys: [k('github-classic'), k('github-fine-grained')] },
    {
      text: msg({ role: 'assistant', content: [{ type: 'toolCall', id: 'c1', name: 'bash', arguments: { command: `HF_TOKEN=${k('huggingface').secret} huggingface-cli whoami` } }] }),
      keys: [k('huggingface')],
    },
    {
      text: msg({ role: 'toolResult', toolCallId: 'c2', content: [{ type: 'text', text: `export SLACK_BOT=${k('slack-bot').secret}\nexport BILLING_API_KEY="${k('env-api-key').secret}"` }] }),
      keys: [k('slack-bot'), k('env-api-key')],
    },
  ];
}

export function toFile(lines: PlantedLine[]): string {
  return lines.map((l) => `${l.text}\n`).join('');
}
