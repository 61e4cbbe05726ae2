// A toy agent that exists only for the tests: one folder (this one) and one registry line
// (BUILTIN.with(toy) in toy.test.ts), nothing else, to prove that is all an agent needs.
// Its sessions: ~/.toy/sessions/<project>/<session>.jsonl, one {"timestamp","who","say","cwd"} a line.
import * as path from 'node:path';
import { homeDir } from '../../../../src/core/home';
import { defineAgent, sessionFromName } from '../../../../src/core/agents/types';
import { toyDialect } from './dialect';

export const toy = defineAgent({
  lane: 'toy',
  agent: 'toy-agent',
  label: 'Toy Agent',
  aliases: ['toybox'],
  env: ['TOY_HOME'],
  roots: (env) => [{ dir: path.join(env.TOY_HOME || path.join(homeDir(env), '.toy'), 'sessions'), lakePrefix: '', include: (rel) => rel.endsWith('.jsonl') }],
  sessionOf: sessionFromName,
  dialect: toyDialect,
  views: path.join(__dirname, 'views.sql'),
  projectFromPath: (rel) => (rel.includes('/') ? `/${rel.split('/')[0]}` : null),
});
