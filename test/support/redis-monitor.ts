import { connect } from 'node:net';

/** One command Redis ran, as MONITOR shows it: its words, and who ran it (`lua`: a script). */
export interface MonitoredCommand {
  args: string[];
  source: string;
}

export interface RedisMonitor {
  stop(): void;
}

/**
 * MONITOR on a connection of its own, read off a plain socket. ioredis' monitor() enters its
 * monitoring state a microtask after MONITOR's OK, so the commands that arrive in the same read as
 * that OK, which a busy server sends at once, are taken for replies to nothing: it throws "Command
 * queue state error" (a CI run of sharded-history failed so). Resolves once Redis has said OK.
 */
export function monitorRedis(
  url: string,
  onCommand: (command: MonitoredCommand) => void,
): Promise<RedisMonitor> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port || 6379), hostname);
  return new Promise((resolve, reject) => {
    let pending = '';
    let started = false;
    socket.once('error', reject);
    socket.on('connect', () => socket.write('MONITOR\r\n'));
    socket.on('data', (chunk: Buffer) => {
      pending += chunk.toString('utf8');
      const lines = pending.split('\r\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        if (!started) {
          if (line !== '+OK') return reject(new Error(`MONITOR answered ${line}`));
          started = true;
          resolve({ stop: () => socket.destroy() });
          continue;
        }
        const command = parseLine(line);
        if (command) onCommand(command);
      }
    });
  });
}

/** `+1712098529.327989 [0 127.0.0.1:62763] "evalsha" "c2a1…" "1"`: its source and quoted words. */
function parseLine(line: string): MonitoredCommand | undefined {
  const match = /^\+\S+ \[\d+ ([^\]]+)\] (.*)$/.exec(line);
  if (!match) return undefined;
  const args: string[] = [];
  for (const [, word = ''] of (match[2] ?? '').matchAll(/"((?:[^"\\]|\\.)*)"/g)) {
    args.push(word.replace(/\\(["\\])/g, '$1'));
  }
  return { args, source: match[1] ?? '' };
}
