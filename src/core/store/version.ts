// The program's version, written only in package.json: `brain --version`, the MCP server's info
// and the stamp <store>/<machine>/.brain/<version>.json all read it here. esbuild inlines the JSON
// at build time; tsx reads it in tests.
import pkg from '../../../package.json';

export const VERSION: string = (pkg as { version: string }).version;
