// config.toml: one test per rejected case, each asserting the message names the key and the value;
// the template parses back to the values it was rendered from; --store splits on the first colon.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'smol-toml';
import { loadConfig, parseStoreArg, readConfig, renderConfig, validateConfig } from '../../../src/core/config';
import { BrainError } from '../../../src/core/errors';
import { sandbox, type Sandbox } from '../../helpers/env';

let sb: Sandbox;
let storeDir: string;
before(() => {
  sb = sandbox({ name: 'config' });
  storeDir = path.join(sb.dir, 'store');
  fs.mkdirSync(storeDir);
});
after(() => sb.cleanup());

const env = { BRAIN_MACHINE: undefined } as NodeJS.ProcessEnv;

function rejects(toml: string, ...parts: (string | RegExp)[]): void {
  const file = path.join(sb.brain, 'config.toml');
  fs.mkdirSync(sb.brain, { recursive: true });
  fs.writeFileSync(file, toml);
  const r = readConfig(sb.brain, env);
  assert.equal(r.kind, 'invalid', `expected ${JSON.stringify(toml)} to be rejected`);
  if (r.kind !== 'invalid') return;
  assert.ok(r.error instanceof BrainError);
  assert.ok(r.error.message.startsWith(file), `message names the file: ${r.error.message}`);
  for (const p of parts) {
    if (typeof p === 'string') assert.ok(r.error.message.includes(p), `"${r.error.message}" should contain ${JSON.stringify(p)}`);
    else assert.match(r.error.message, p);
  }
  assert.ok(r.error.hint && r.error.hint.length > 10, 'says what to do');
}

describe('config.toml rejects, naming key and value', () => {
  it('an unknown top-level key', () => rejects(`machnie = "x"\n`, 'unknown key "machnie"', '"x"'));
  it('an unknown key in [store]', () => rejects(`[store]\npath = "${storeDir}"\nhots = "box"\n`, 'unknown key "hots" in [store]', '"box"'));
  it('a relative store path', () => rejects(`[store]\npath = "backups/brain"\n`, '[store] path = "backups/brain"', 'not absolute'));
  it('a host containing a colon', () => rejects(`[store]\npath = "/srv/brain"\nhost = "box:/srv/brain"\n`, '[store] host = "box:/srv/brain"', 'contains a colon'));
  it('ssh_mux_only without host', () => rejects(`[store]\npath = "${storeDir}"\nssh_mux_only = true\n`, 'ssh_mux_only = true without host'));
  it('a local store folder that does not exist', () => rejects(`[store]\npath = "/nonexistent/brain-store"\n`, '[store] path = "/nonexistent/brain-store"', 'does not exist'));
  it('a store path missing', () => rejects(`[store]\nhost = "box"\n`, '[store] path = undefined', 'missing'));
  it('a host with a space or leading dash', () => rejects(`[store]\npath = "/srv"\nhost = "-oProxyCommand=x"\n`, '[store] host = "-oProxyCommand=x"', 'not a plain ssh destination'));
  it('a store path with a quote', () => rejects(`[store]\npath = "/srv/it's"\nhost = "box"\n`, `[store] path = "/srv/it's"`, 'quote'));
  it('ssh_mux_only that is not a boolean', () => rejects(`[store]\npath = "/srv"\nhost = "box"\nssh_mux_only = "yes"\n`, 'ssh_mux_only = "yes"', 'not true or false'));
  it('a machine name that is not a folder name', () => rejects(`machine = "my box/1"\n`, 'machine = "my box/1"', 'not a plain folder name'));
  it('a relative rsync_path', () => rejects(`rsync_path = "bin/rsync"\n`, 'rsync_path = "bin/rsync"', 'relative'));
  it('an interval below a minute', () => rejects(`interval = 5\n`, 'interval = 5', 'between 60 seconds and 1 day'));
  it('an interval that is not a duration', () => rejects(`interval = "soon"\n`, 'interval = "soon"'));
  it('store that is not a table', () => rejects(`store = "/srv/brain"\n`, 'store = "/srv/brain"', '[store] table'));
  it('a file that is not TOML, naming the line and column', () => {
    const file = path.join(sb.brain, 'config.toml');
    fs.writeFileSync(file, `machine = "box"\n\n[store\npath = 1\n`);
    const r = readConfig(sb.brain, env);
    assert.equal(r.kind, 'invalid');
    if (r.kind === 'invalid') {
      assert.equal(r.error.code, 'config-unparsable');
      assert.ok(r.error.message.startsWith(`${file}:3:7: not valid TOML: `), r.error.message);
      assert.ok(!r.error.message.includes('\n'), 'one line: it is shown in status bars');
    }
  });
  it('a bad value, naming the line it is on', () => {
    const file = path.join(sb.brain, 'config.toml');
    fs.writeFileSync(file, `# comment\nmachine = "box"\n[store]\npath = "${storeDir}"\nhost = "box:/srv"\n`);
    const r = readConfig(sb.brain, env);
    assert.ok(r.kind === 'invalid' && r.error.message.startsWith(`${file}:5: [store] host = "box:/srv"`), JSON.stringify(r));
    fs.writeFileSync(file, `interval = 5\n`);
    const r2 = readConfig(sb.brain, env);
    assert.ok(r2.kind === 'invalid' && r2.error.message.startsWith(`${file}:1: interval = 5`), JSON.stringify(r2));
  });
});

describe('config.toml accepts', () => {
  it('a local store, defaults filled in', () => {
    fs.writeFileSync(path.join(sb.brain, 'config.toml'), `[store]\npath = "${storeDir}/"\n`);
    const c = loadConfig(sb.brain, env);
    assert.equal(c.store?.path, storeDir, 'trailing slash dropped');
    assert.equal(c.store?.host, undefined);
    assert.equal(c.store?.ssh_mux_only, false);
    assert.equal(c.interval, 600);
    assert.equal(c.rsync_path, 'rsync');
    assert.equal(c.machineFrom, 'hostname');
  });
  it('an ssh store whose folder does not exist here, and durations', () => {
    fs.writeFileSync(path.join(sb.brain, 'config.toml'), `machine = "laptop-1"\ninterval = "15m"\n[store]\npath = "/srv/brain"\nhost = "me@box"\nssh_mux_only = true\n`);
    const c = loadConfig(sb.brain, env);
    assert.deepEqual(c.store, { path: '/srv/brain', host: 'me@box', ssh_mux_only: true });
    assert.equal(c.machine, 'laptop-1');
    assert.equal(c.interval, 900);
  });
  it('BRAIN_MACHINE overrides the file (tests)', () => {
    fs.writeFileSync(path.join(sb.brain, 'config.toml'), `machine = "laptop-1"\n`);
    const c = loadConfig(sb.brain, { BRAIN_MACHINE: 'testbox' });
    assert.equal(c.machine, 'testbox');
    assert.equal(c.machineFrom, 'env');
  });
  it('a missing file is an error that names brain init', () => {
    fs.rmSync(path.join(sb.brain, 'config.toml'));
    assert.throws(() => loadConfig(sb.brain, env), (e: BrainError) => e.code === 'config-missing' && /brain init/.test(e.hint ?? ''));
  });
});

describe('the template', () => {
  it('renders values that parse and validate back to themselves', () => {
    const text = renderConfig({ machine: 'box', rsync_path: '/usr/bin/rsync', interval: 300, store: { path: storeDir } });
    const c = validateConfig(parse(text) as Record<string, unknown>, 'x.toml', env);
    assert.equal(c.machine, 'box');
    assert.equal(c.interval, 300);
    assert.equal(c.store?.path, storeDir);
    // Every rule is written beside its key.
    for (const rule of ['absolute', 'no colon', 'Requires host', 'must already exist']) assert.ok(text.includes(rule), rule);
  });
  it('renders without a store as comments only', () => {
    const c = validateConfig(parse(renderConfig({})) as Record<string, unknown>, 'x.toml', env);
    assert.equal(c.store, undefined);
  });
  it('an ssh store with ssh_mux_only', () => {
    const c = validateConfig(parse(renderConfig({ store: { path: '/srv/b', host: 'box', ssh_mux_only: true } })) as Record<string, unknown>, 'x.toml', env);
    assert.deepEqual(c.store, { path: '/srv/b', host: 'box', ssh_mux_only: true });
  });
});

describe('--store', () => {
  it('PATH is local, HOST:PATH is ssh, split on the first colon', () => {
    assert.deepEqual(parseStoreArg('/mnt/b'), { path: '/mnt/b' });
    assert.deepEqual(parseStoreArg('me@box:/srv/b:x'), { host: 'me@box', path: '/srv/b:x' });
    assert.throws(() => parseStoreArg('relative/dir'), /neither an absolute path nor HOST:\/PATH/);
  });
});

describe('BRAIN_MACHINE', () => {
  it('names a folder at the store, so it must be a plain folder name like machine = (no .., no /)', () => {
    const raw = parse(renderConfig({ store: { path: storeDir } })) as Record<string, unknown>;
    for (const bad of ['../escape', 'a/b', '..', '.hidden', '/abs']) {
      assert.throws(
        () => validateConfig(raw, 'x.toml', { BRAIN_MACHINE: bad }),
        (e: unknown) => e instanceof BrainError && e.code === 'config-invalid' && e.message.includes(JSON.stringify(bad)) && /plain folder name/.test(e.message),
        bad,
      );
    }
    assert.equal(validateConfig(raw, 'x.toml', { BRAIN_MACHINE: 'box-2.lan' }).machine, 'box-2.lan');
  });
});
