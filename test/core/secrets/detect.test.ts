import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { detect } from '../../../src/core/secrets/detect';
import { entropy, looksSecret } from '../../../src/core/secrets/extra';
import { fingerprint, mask } from '../../../src/core/secrets/mask';
import { byName, ccSession, codexSession, piSession, plantedKeys, toFile, type PlantedLine } from './plant';

const SALT = 'test-salt';
const keys = plantedKeys();

/** No 10-character window of the key's random body appears in `s`. */
export function assertNoWindow(s: string, body: string, where: string): void {
  for (let i = 0; i + 10 <= body.length; i += 5) {
    const w = body.slice(i, i + 10);
    assert.ok(!s.includes(w), `${where} holds part of a secret (${JSON.stringify(w.slice(0, 2))}…)`);
  }
}

async function checkSession(name: string, lines: PlantedLine[]): Promise<void> {
  const buf = Buffer.from(toFile(lines));
  const hits = await detect(buf, SALT);
  const expected = lines.flatMap((l, i) => l.keys.map((k) => ({ line: i, k })));
  assert.equal(hits.length, expected.length, `${name}: ${hits.map((h) => `${h.line + 1}:${h.rule}`).join(', ')}`);
  for (const { line, k } of expected) {
    const h = hits.find((x) => x.line === line && x.secret_id === fingerprint(SALT, k.masked));
    assert.ok(h, `${name}: ${k.name} not found on line ${line + 1}`);
    assert.equal(h.kind, k.kind, `${name}: ${k.name} kind`);
    assert.equal(h.preview, mask(k.masked));
    // The line's byte range is exactly that line, newline included.
    assert.equal(buf.subarray(h.from, h.to).toString(), `${lines[line].text}\n`);
    assertNoWindow(JSON.stringify(h), k.body, `${name}: the hit for ${k.name}`);
  }
}

describe('secret detection', () => {
  it('finds every planted kind in Claude Code-shaped lines (.env output, service-account JSON, prompt, tool arguments, PEM)', async () => {
    await checkSession('cc', ccSession(keys, 'planted-1'));
  });

  it('finds keys inside nested JSON strings of Codex lines (function_call arguments, tool output)', async () => {
    await checkSession('codex', codexSession(keys));
  });

  it('finds keys in Pi content arrays and tool-call arguments', async () => {
    await checkSession('pi', piSession(keys));
  });

  it('classifies a PEM on a service-account line as GCP and keeps one finding per key per line', async () => {
    const lines = ccSession(keys, 'x');
    const buf = Buffer.from(`${lines[3].text}\n`);
    const hits = await detect(buf, SALT);
    assert.equal(hits.length, 1);
    assert.equal(hits[0].kind, 'gcp');
    assert.equal(hits[0].label, 'GCP service-account private key');
  });

  it('finds a key at the very start of a buffer and in an unterminated last line', async () => {
    const k = byName(keys, 'github-classic').secret;
    const hits = await detect(Buffer.from(`${k} first\nmiddle line\nlast ${byName(keys, 'huggingface').secret}`), SALT);
    assert.deepEqual(
      hits.map((h) => [h.line, h.kind]),
      [
        [0, 'github'],
        [2, 'huggingface'],
      ],
    );
    assert.equal(hits[1].to, Buffer.byteLength(`${k} first\nmiddle line\nlast ${byName(keys, 'huggingface').secret}`));
  });

  it('reads a PEM block pasted as plain-text lines whole, as lines BEGIN..END', async () => {
    const k = byName(keys, 'openssh-private-key');
    const text = `before\n${k.secret}after\n`;
    const hits = await detect(Buffer.from(text), SALT);
    assert.equal(hits.length, 1);
    const pemLines = k.secret.split('\n').length - 1;
    assert.deepEqual([hits[0].line, hits[0].line_last], [1, pemLines]);
    assert.equal(text.slice(hits[0].from, hits[0].to), k.secret);
    assert.equal(hits[0].preview, mask(k.masked));
  });

  it('reads the line timestamp of JSON lines', async () => {
    const hits = await detect(Buffer.from(toFile(ccSession(keys, 's'))), SALT);
    assert.match(hits[0].line_ts ?? '', /^2026-01-05T10:00:0\d\.000Z$/);
  });

  it('does not report placeholders, references, code and transcript fields', async () => {
    const quiet = [
      'export ANTHROPIC_API_KEY=sk-ant-...',
      'OPENAI_API_KEY=your-openai-key-here',
      'API_KEY=${API_KEY}',
      'PASSWORD=$DB_PASSWORD',
      'password: string;',
      'const apiKey = await getApiKeyForModel(model);',
      'token = os.environ["GITHUB_TOKEN"]',
      'SECRET_KEY=changeme',
      'DB_PASSWORD=<password>',
      'aws_access_key_id = ' + 'AKIA' + 'IOSFODNN7EXAMPLE',
      'api_key: "xxxxxxxxxxxxxxxxxxxxxxxx"',
      'TOKEN=********************',
      'key: setup-uv-1-x86_64-unknown-linux-gnu-3.12.3',
      'all_messages.sort(key=get_timestamp)',
      'result.apiKey = args[++i];',
      'session_token=550e8400',
      'password=hunter2',
      'next_page_token: null',
      '{"type":"result","key":"v2:stage0key","input_tokens":12345,"output_tokens":678}',
      'commit 4b05c19a8f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c',
      'SECRET_NAME=database_credentials_for_staging',
      'auth_token=process.env.AUTH_TOKEN',
    ];
    for (const line of quiet) {
      const asJson = JSON.stringify({ type: 'user', message: { role: 'user', content: line } });
      const hits = await detect(Buffer.from(`${line}\n${asJson}\n`), SALT);
      assert.deepEqual(
        hits.map((h) => h.rule),
        [],
        `false positive on ${JSON.stringify(line)}`,
      );
    }
  });

  it('finds generated values assigned to secret names in .env, JSON, YAML and code', async () => {
    const v = byName(keys, 'env-api-key').secret;
    const forms = [`STRIPE_SECRET=${v}`, `"apiKey": "${v}"`, `db_password: '${v}'`, `client_secret = "${v}"`, `export PGPASSWORD=${v}`, `spring.datasource.password=${v}`];
    for (const f of forms) {
      const hits = await detect(Buffer.from(`${f}\n`), SALT);
      assert.equal(hits.length, 1, f);
      assert.equal(hits[0].kind, 'env-assignment');
      assert.equal(hits[0].preview, mask(v));
    }
  });
});

describe('masking', () => {
  it('shows at most the first 4 and last 2 characters, less for short values', () => {
    assert.equal(mask('abcdefghijklmnopqrstuvwxyz'), 'abcd…yz');
    assert.equal(mask('abcdefghijklmno'), 'ab…');
    assert.equal(mask('abcdefgh'), '…');
  });

  it('fingerprints are salted: the same key gives the same id under one salt only', () => {
    assert.equal(fingerprint('a', 'k1'), fingerprint('a', 'k1'));
    assert.notEqual(fingerprint('a', 'k1'), fingerprint('b', 'k1'));
  });

  it('looksSecret separates generated values from words, paths and numbers', () => {
    assert.equal(looksSecret('9fK#2mQ7xLp4Zt8R', false), true);
    assert.equal(looksSecret('/usr/local/bin/node', false), false);
    assert.equal(looksSecret('MyDatabasePassword', true), false);
    assert.equal(looksSecret('1234567890123', false), false);
    assert.ok(entropy('aaaa') === 0 && entropy('abcd') === 2);
  });
});
