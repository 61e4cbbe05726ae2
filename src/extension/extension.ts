// Entry point of the VS Code extension: wiring only (STYLE.md 1, 9).
import * as vscode from 'vscode';

export function activate(context: vscode.ExtensionContext): void {
  const t0 = performance.now();
  const item = vscode.window.createStatusBarItem('agentBrain.status', vscode.StatusBarAlignment.Left, 100);
  item.name = 'Agent Brain';
  item.text = '$(database) brain';
  item.show();
  context.subscriptions.push(item);
  const out = process.env.BRAIN_E2E_OUT;
  if (out) {
    void vscode.commands.executeCommand('setContext', 'agentBrain.testMode', true);
    context.subscriptions.push(
      vscode.commands.registerCommand('agentBrain.test.ping', async () => {
        const fs = await import('node:fs');
        fs.writeFileSync(out, JSON.stringify({ node: process.version, activationMs: performance.now() - t0 }));
      }),
    );
  }
}

export function deactivate(): void {}
