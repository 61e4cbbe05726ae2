// The verb table: one line per CLI verb, each verb in its own file.
import type { Verb } from './args';
import { record } from './record';
import { watch } from './watch';
import { verify } from './verify';
import { hook } from './hook';

export const VERBS: Verb[] = [record, watch, verify, hook];
