// The normalised turn and the citation: declared once, reused by the index, search, the CLI's
// --json, the MCP tools and the VS Code LM tools.
import type { Lane } from './floor/manifest';

/** A checkable pointer into the floor: `sed -n 'A,Bp' <home>/<lake_path> | sha256sum` equals sha256. */
export interface Citation {
  machine: string;
  lake_path: string;
  gen: number;
  line_from: number;
  line_to: number;
  byte_from: number;
  byte_to: number;
  sha256: string;
}
