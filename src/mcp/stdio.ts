// MCP over stdio, one JSON-RPC message per line. The SDK's own stdio transport drops a line that is
// not JSON with no answer (the client then waits for ever) and closes itself on an over-long line;
// JSON-RPC asks for an error response instead, and the server keeps serving: -32700 with id null
// for a line that does not parse, -32600 for JSON that is not a JSON-RPC message. The end of stdin
// is the client going away: the transport closes, which aborts every request still running.
import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** The longest line kept (the SDK's limit too); the rest of a longer line is skipped and answered. */
export const MAX_LINE_BYTES = 10 * 1024 * 1024;

export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private parts: Buffer[] = [];
  private held = 0;
  /** Inside a line already over MAX_LINE_BYTES: drop until its newline. */
  private skipping = false;
  private closed = false;

  constructor(
    private readonly stdin: Readable,
    private readonly stdout: Writable,
  ) {}

  private readonly onData = (chunk: Buffer | string) => {
    let buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    for (;;) {
      const nl = buf.indexOf(0x0a);
      if (nl < 0) {
        this.hold(buf);
        return;
      }
      this.hold(buf.subarray(0, nl));
      const skipped = this.skipping;
      const line = skipped ? null : Buffer.concat(this.parts).toString('utf8');
      this.parts = [];
      this.held = 0;
      this.skipping = false;
      if (skipped) this.reject(ErrorCode.ParseError, `Parse error: a line longer than ${MAX_LINE_BYTES} bytes was skipped`);
      else if (line !== null) this.line(line);
      buf = buf.subarray(nl + 1);
      if (this.closed) return;
    }
  };

  private readonly onEnd = () => void this.close();
  private readonly onError = (e: Error) => this.onerror?.(e);

  private hold(b: Buffer): void {
    if (this.skipping || b.length === 0) return;
    if (this.held + b.length > MAX_LINE_BYTES) {
      this.parts = [];
      this.held = 0;
      this.skipping = true;
      return;
    }
    this.parts.push(b);
    this.held += b.length;
  }

  private line(text: string): void {
    const s = text.replace(/\r$/, '');
    if (s.trim() === '') return;
    let json: unknown;
    try {
      json = JSON.parse(s);
    } catch (e) {
      this.reject(ErrorCode.ParseError, `Parse error: ${(e as Error).message}`);
      return;
    }
    const m = JSONRPCMessageSchema.safeParse(json);
    if (!m.success) {
      const id = (json as { id?: unknown } | null)?.id;
      this.reject(ErrorCode.InvalidRequest, 'Invalid Request: not a JSON-RPC 2.0 message', typeof id === 'string' || typeof id === 'number' ? id : null);
      return;
    }
    this.onmessage?.(m.data);
  }

  private reject(code: number, message: string, id: string | number | null = null): void {
    this.onerror?.(new Error(message));
    // JSON-RPC's error object for a request whose id could not be read has id null, which the
    // SDK's message type does not allow: written here directly.
    this.write(`${JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } })}\n`);
  }

  private write(text: string): Promise<void> {
    return new Promise((resolve) => {
      if (this.stdout.destroyed || this.stdout.writableEnded) return resolve();
      if (this.stdout.write(text)) resolve();
      else this.stdout.once('drain', resolve);
    });
  }

  async start(): Promise<void> {
    this.stdin.on('data', this.onData);
    this.stdin.on('error', this.onError);
    this.stdin.once('end', this.onEnd);
    this.stdin.once('close', this.onEnd);
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.write(`${JSON.stringify(message)}\n`);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stdin.off('data', this.onData);
    this.stdin.off('error', this.onError);
    this.stdin.off('end', this.onEnd);
    this.stdin.off('close', this.onEnd);
    this.stdin.pause();
    this.parts = [];
    this.onclose?.();
  }
}
