// Text from a session (its turns, title, paths, tool output; this machine's or another's) is
// whatever an agent, a tool or a file put there, and a terminal obeys some of it: ESC sequences
// set the clipboard (OSC 52) or the window title (OSC 0), move the cursor, hide text; a lone CR
// overwrites the line; bidi overrides reorder what is shown. Everything brain prints goes through
// visible(), which shows such characters instead of sending them:
//   C0 controls (but tab and newline, and CR before a newline) in caret form: ESC is ^[, NUL ^@;
//   DEL, C1 controls (U+0080–U+009F), bidi controls and the line/paragraph separators as \uXXXX.
// Both forms leave JSON valid and exact: JSON.stringify already writes every C0 control as \u00XX,
// so in a JSON answer only the second kind is found, and its \uXXXX is JSON's own escape of it.
const C0 = /[\u0000-\u0008\u000b\u000c\u000e-\u001f]|\r(?!\n)/g;
const OTHER = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const ANY = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

const caret = (c: string) => `^${String.fromCharCode(c.charCodeAt(0) ^ 0x40)}`;
const uEscape = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** `s` with every character a terminal would act on shown instead (see above). With `oneLine`,
 * newlines and tabs too (\n, \t: a tree label, a table cell). */
export function visible(s: string, o: { oneLine?: boolean } = {}): string {
  let out = s;
  if (ANY.test(out)) out = out.replace(C0, caret).replace(OTHER, uEscape);
  if (o.oneLine && /[\n\t\r]/.test(out)) out = out.replace(/\r\n|\n|\t|\r/g, (c) => (c === '\t' ? '\\t' : c === '\r' ? '^M' : '\\n'));
  return out;
}
