// The verb table: one line per CLI verb, each verb in its own file.
import type { Verb } from './args';
import { record } from './record';
import { watch } from './watch';
import { verify } from './verify';
import { hook } from './hook';
import { init } from './init';
import { sync } from './sync';
import { tick } from './tick';
import { status } from './status';
import { machines } from './machines';
import { doctor } from './doctor';
import { backup } from './backup';
import { timer } from './timer';
import { sql } from './sql';
import { rebuild } from './rebuild';
import { stats } from './stats';
import { calls } from './calls';

export const VERBS: Verb[] = [record, watch, verify, hook, init, sync, tick, status, machines, doctor, backup, timer, sql, rebuild, stats, calls];
