// The program's version, as stamped into <store>/<machine>/.brain/<version>.json.
// esbuild inlines the JSON at build time; tsx reads it in tests.
import pkg from '../../../package.json';

export const VERSION: string = (pkg as { version: string }).version;
