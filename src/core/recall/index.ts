// The recall core: one implementation that the CLI, the MCP server and the VS Code LM tools wrap.
// Everything here reads; nothing writes to the floor (the turn index is a cache beside it).
export { search, globToRegExp, parseSince, snippetText, DEFAULT_LIMIT } from './search';
export { readSession, parseRange, DEFAULT_MAX_CHARS } from './read';
export { cite, verify, citeSpan } from './cite';
export { validateInput } from './validate';
export * from './types';
