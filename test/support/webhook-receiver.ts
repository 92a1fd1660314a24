import { type ChildProcess, spawn } from 'node:child_process';
import { freePort } from '@skillrun/redis-server';
import { repoRoot } from './service-process';

export interface ReceivedDelivery {
  path: string;
  headers: Record<string, string>;
  body: { type: string; timestamp: string; data: Record<string, unknown> & { execution_id: string } };
  verified: boolean;
}

/** The webhook receiver process (webhook-receiver-process.ts), on a port it keeps across restarts. */
export class WebhookReceiver {
  private child: ChildProcess | undefined;

  private constructor(readonly port: number) {}

  static async start(): Promise<WebhookReceiver> {
    const receiver = new WebhookReceiver(await freePort());
    await receiver.restart();
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Starts it again (after stop): what it had received and its secrets are gone. */
  async restart(): Promise<void> {
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/webhook-receiver-process.ts'], {
      cwd: repoRoot,
      env: { PATH: process.env.PATH ?? '', PORT: String(this.port) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    this.child = child;
    await new Promise<void>((resolve, reject) => {
      child.stdout?.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('listening')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`the receiver exited (${code})`)));
    });
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }

  async trust(secret: string): Promise<void> {
    const answer = await fetch(`${this.url}/secrets`, { method: 'PUT', body: JSON.stringify({ secret }) });
    if (answer.status !== 204) throw new Error(`the receiver answered ${answer.status}`);
  }

  async received(): Promise<ReceivedDelivery[]> {
    return (await (await fetch(`${this.url}/received`)).json()) as ReceivedDelivery[];
  }
}
