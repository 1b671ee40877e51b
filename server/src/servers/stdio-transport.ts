import { spawn, type ChildProcess } from 'node:child_process';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

// Every live child's process group, so an exiting Hub can take them all down.
const liveGroups = new Set<number>();
process.once('exit', () => {
  for (const pgid of liveGroups) killGroup(pgid, 'SIGKILL');
});

function killGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // already gone
  }
}

export type StdioParams = { command: string; args: string[]; env: Record<string, string>; cwd?: string };

/**
 * Like the SDK's stdio client transport, but the child leads its own process
 * group: closing kills the child and every grandchild (npx, uvx, shells).
 */
export class GroupStdioTransport implements Transport {
  private child?: ChildProcess;
  private pending = '';
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** Lines the child wrote to stderr. */
  onstderr?: (line: string) => void;

  constructor(private readonly params: StdioParams) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      const child = spawn(this.params.command, this.params.args, {
        env: this.params.env,
        cwd: this.params.cwd,
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: true,
        shell: false,
      });
      this.child = child;
      child.on('error', (err) => {
        reject(err);
        this.onerror?.(err);
      });
      child.on('spawn', () => {
        if (child.pid) liveGroups.add(child.pid);
        resolve();
      });
      child.on('close', () => {
        if (child.pid) liveGroups.delete(child.pid);
        this.child = undefined;
        this.onclose?.();
      });
      child.stdin!.on('error', (err) => this.onerror?.(err));
      child.stdout!.setEncoding('utf8');
      child.stdout!.on('data', (chunk: string) => this.drain(chunk));
      child.stdout!.on('error', (err) => this.onerror?.(err));
      let partial = '';
      child.stderr!.on('data', (chunk: Buffer) => {
        const lines = (partial + chunk.toString('utf8')).split('\n');
        partial = lines.pop() ?? '';
        for (const line of lines) if (line.trim()) this.onstderr?.(line);
      });
    });
  }

  /**
   * Newline-delimited JSON-RPC. Parsed with JSON.parse only: the protocol
   * layer checks each message's shape, and a schema pass here cost ~25 µs a
   * message on the hot path.
   */
  private drain(chunk: string): void {
    const lines = (this.pending + chunk).split('\n');
    this.pending = lines.pop() ?? '';
    if (this.pending.length > 64 * 1024 * 1024) {
      this.pending = '';
      this.onerror?.(new Error('Message from the server exceeds 64 MiB'));
    }
    const messages: JSONRPCMessage[] = [];
    for (const raw of lines) {
      const line = raw.trim();
      if (!line) continue;
      let message: unknown;
      try {
        message = JSON.parse(line);
      } catch {
        this.onerror?.(new Error(`Not JSON from the server: ${line.slice(0, 200)}`));
        continue;
      }
      if (message && typeof message === 'object' && (message as { jsonrpc?: string }).jsonrpc === '2.0') messages.push(message as JSONRPCMessage);
    }
    this.deliver(messages, 0);
  }

  /**
   * The SDK handles a notification one microtask after it arrives, and a
   * response that gets in first drops the request's progress handler: a
   * progress update read together with the result would be lost. So each
   * message after a notification waits for that notification's microtask,
   * one after the other (a single shared wait let the second of two
   * progress updates fall behind the result).
   */
  private deliver(messages: JSONRPCMessage[], from: number): void {
    for (let i = from; i < messages.length; i++) {
      const m = messages[i]!;
      this.onmessage?.(m);
      if ('method' in m && !('id' in m) && i + 1 < messages.length) {
        queueMicrotask(() => this.deliver(messages, i + 1));
        return;
      }
    }
  }

  private corked = false;

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      const stdin = this.child?.stdin;
      if (!stdin) throw new Error('Not connected');
      // Messages sent in the same tick leave in one write: a pipe write that wakes the
      // child costs ~0.25 ms of CPU on this VM, whatever its size.
      if (!this.corked) {
        this.corked = true;
        stdin.cork();
        process.nextTick(() => {
          this.corked = false;
          stdin.uncork();
        });
      }
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once('drain', resolve);
    });
  }

  async close(): Promise<void> {
    const child = this.child;
    if (!child?.pid) return;
    const pgid = child.pid;
    const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
    child.stdin?.end();
    killGroup(pgid, 'SIGTERM');
    const timer = setTimeout(() => killGroup(pgid, 'SIGKILL'), 2000);
    await exited;
    clearTimeout(timer);
    // Grandchildren that ignored SIGTERM and outlived the leader.
    killGroup(pgid, 'SIGKILL');
    liveGroups.delete(pgid);
    this.pending = '';
  }
}
