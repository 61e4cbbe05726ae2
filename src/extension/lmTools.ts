// The recall tools for language models (vscode.lm.registerTool), each the core's tool under its
// core name with the LM prefix (brain_search). Read-only; each answer is sized for a model's
// context and every error says what to try instead. The input schemas are in package.json
// (contributes.languageModelTools), equal to the core's declared inputs (INPUT_SCHEMAS).
import * as vscode from 'vscode';
import type { Backend } from './backend';
import { RemoteError } from './backend';
import { TOOL_NAMES, lmToolName, type ToolName } from '../core/recall/types';
import { chatSessionOf, sized } from './recall';

function message(name: ToolName, input: Record<string, unknown>): string {
  switch (name) {
    case 'search':
      return `Searching recorded agent sessions for "${String(input.query ?? '')}"`;
    case 'read_session':
      return `Reading session ${String(input.session ?? '')}${input.from ? ` from turn ${input.from}` : ''}`;
    case 'cite':
      return `Citing lines ${input.line_from}–${input.line_to} of ${String(input.lake_path ?? '')}`;
    case 'verify_citation':
      return 'Verifying a citation against the floor';
    case 'sql':
      return 'Running a read-only SQL query on the session cache';
  }
}

export function registerTools(backend: Backend): vscode.Disposable[] {
  if (!vscode.lm?.registerTool) return [];
  return TOOL_NAMES.map((name) =>
    vscode.lm.registerTool<Record<string, unknown>>(lmToolName(name), {
      prepareInvocation(options) {
        return { invocationMessage: message(name, options.input ?? {}) };
      },
      async invoke(options, token) {
        const answer = backend.recall(name, options.input, { session: chatSessionOf(options.toolInvocationToken) });
        const cancelled = new Promise<never>((_, reject) => token.onCancellationRequested(() => reject(new RemoteError('cancelled', 'cancelled'))));
        try {
          const result = await Promise.race([answer, cancelled]);
          return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(sized(result))]);
        } catch (e) {
          // An error the model can act on, as the tool's answer rather than an exception.
          const err = e instanceof RemoteError ? e : new RemoteError('error', String(e));
          return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(JSON.stringify({ error: err.code, message: err.message, hint: err.hint }))]);
        }
      },
    }),
  );
}
