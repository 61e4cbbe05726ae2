// Test-only commands, registered only when BRAIN_E2E_OUT names a folder (the e2e suite sets it).
// They let the suite reach inside the extension host: vscode.lm.invokeTool is callable only there.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { monitorEventLoopDelay, performance, type EventLoopUtilization, type IntervalHistogram } from 'node:perf_hooks';
import * as vscode from 'vscode';
import type { Live } from './extension';
import { setting } from '../core/settings';

export function registerTestCommands(live: Live): vscode.Disposable[] {
  const dir = setting(process.env, 'BRAIN_E2E_OUT')!;
  const write = (name: string, data: unknown) => {
    fs.mkdirSync(dir, { recursive: true });
    const tmp = path.join(dir, `.${name}.tmp`);
    fs.writeFileSync(tmp, JSON.stringify(data, null, 1));
    fs.renameSync(tmp, path.join(dir, `${name}.json`));
  };
  void vscode.commands.executeCommand('setContext', 'agentBrain.testMode', true);
  let loop: IntervalHistogram | undefined;
  let elu: EventLoopUtilization | undefined;
  return [
    // A window of measurement chosen by the test: on, then off, which writes the figures.
    vscode.commands.registerCommand('agentBrain.test.loop', () => {
      if (!loop) {
        live.mainWorkMaxMs = 0;
        loop = monitorEventLoopDelay({ resolution: 10 });
        loop.enable();
        elu = performance.eventLoopUtilization();
        write('loop', { running: true });
        return;
      }
      loop.disable();
      // Utilization tells a busy main thread (our code running) from a starved one (the machine's
      // cores busy elsewhere): high delay with low utilization is the second.
      const u = performance.eventLoopUtilization(elu);
      write('loop', { running: false, max: loop.max / 1e6, p99: loop.percentile(99) / 1e6, p50: loop.percentile(50) / 1e6, mean: loop.mean / 1e6, samples: loop.count, utilization: u.utilization, activeMs: u.active, ownWorkMaxMs: live.mainWorkMaxMs });
      loop = undefined;
    }),
    vscode.commands.registerCommand('agentBrain.test.ping', () => {
      write('ping', {
        node: process.version,
        activationMs: live.activationMs,
        role: live.role,
        machine: live.machine,
        loop: live.loop,
        catchUps: live.catchUps,
        sessions: live.tree.all().length,
        status: live.status.item.text,
        reader: live.reader.last,
        mainWorkMaxMs: live.mainWorkMaxMs,
      });
    }),
    vscode.commands.registerCommand('agentBrain.test.clipboard', async () => {
      write('clipboard', { text: await vscode.env.clipboard.readText() });
    }),
    vscode.commands.registerCommand('agentBrain.test.invokeTools', async () => {
      const input = JSON.parse(fs.readFileSync(path.join(dir, 'invoke-in.json'), 'utf8')) as { calls: { tool: string; input: object }[] };
      const results: { tool: string; text: string; error?: string; registered: boolean }[] = [];
      const names = new Set(vscode.lm.tools.map((t) => t.name));
      for (const call of input.calls) {
        try {
          const r = await vscode.lm.invokeTool(call.tool, { input: call.input, toolInvocationToken: undefined });
          const text = r.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
          results.push({ tool: call.tool, text, registered: names.has(call.tool) });
        } catch (e) {
          results.push({ tool: call.tool, text: '', error: String(e), registered: names.has(call.tool) });
        }
      }
      write('invoke-out', { results, tools: vscode.lm.tools.filter((t) => t.name.startsWith('brain_')).map((t) => ({ name: t.name, inputSchema: t.inputSchema })) });
    }),
  ];
}
