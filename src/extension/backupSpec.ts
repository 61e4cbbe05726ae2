// Set Up Backup…'s ssh form: what the host and folder fields accept, and the --store they give
// `brain init` (host:/path). No vscode here, so the rules are checked without an editor.

/** Why a typed ssh host is refused, or undefined when it is one (a ~/.ssh/config name, host, or
 * user@host: no spaces, colons or slashes, which would change what init reads). */
export function sshHostProblem(v: string): string | undefined {
  return !v.trim() ? 'Name a host' : /[:\s/]/.test(v.trim()) ? 'Only the host: no spaces, colons or slashes' : undefined;
}

/** Why a typed store folder is refused, or undefined for an absolute path. */
export function storeDirProblem(v: string): string | undefined {
  return v.trim().startsWith('/') ? undefined : 'An absolute path, starting with /';
}

/** The --store of an ssh store, as `brain init` reads it. */
export function sshStore(host: string, dir: string): string {
  return `${host.trim()}:${dir.trim()}`;
}
