import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy on 127.0.0.1 in front of a server (Redis), for faults a process cannot be made to
 * have by killing the server: replies that never come back on a connection that stays open, or a
 * network partition. Each client connection gets its own connection to the server; when either
 * side closes, so does the other, as a real network path would.
 */
export class TcpProxy {
  private readonly pairs = new Set<Pair>();
  private partitioned = false;

  private constructor(
    private readonly listener: Server,
    readonly port: number,
    private target: Target,
  ) {}

  static async start(target: Target): Promise<TcpProxy> {
    let proxy: TcpProxy | undefined;
    const listener = createServer((client) => proxy?.pipe(client));
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    const address = listener.address();
    if (typeof address !== 'object' || !address) throw new Error('the proxy has no port');
    proxy = new TcpProxy(listener, address.port, target);
    return proxy;
  }

  /**
   * New connections go to `target` from now on, those open now stay where they are: an address
   * that follows a promoted master (a Kubernetes Service, a Sentinel's answer) seen from a client.
   */
  retarget(target: Target): void {
    this.target = target;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** From now on, what the server answers on the connections open now is dropped; new ones are spared. */
  dropReplies(): void {
    for (const pair of this.pairs) pair.replies = 'drop';
  }

  /**
   * From now on, what the server answers on the connections open now is held back (new ones are
   * spared) until releaseReplies(): a client that waits for a reply before it sends more sends
   * nothing more meanwhile.
   */
  holdReplies(): void {
    for (const pair of this.pairs) pair.replies = [];
  }

  /** The replies held back are delivered, in order, and replies flow again. */
  releaseReplies(): void {
    for (const pair of this.pairs) {
      const held = pair.replies;
      pair.replies = 'pass';
      if (Array.isArray(held)) for (const chunk of held) pair.client.write(chunk);
    }
  }

  /**
   * A partition: from now on nothing flows either way, on the connections open now and on new ones
   * (accepted, as a proxy's kernel would, and then silent), and nothing is closed. What is sent
   * meanwhile waits, as TCP retransmits it, until heal().
   */
  blackhole(): void {
    this.partitioned = true;
    for (const { client, server } of this.pairs) {
      client.pause();
      server.pause();
    }
  }

  /** The partition ends: everything flows again. */
  heal(): void {
    this.partitioned = false;
    for (const { client, server } of this.pairs) {
      client.resume();
      server.resume();
    }
  }

  async close(): Promise<void> {
    for (const { client, server } of this.pairs) {
      client.destroy();
      server.destroy();
    }
    await new Promise<void>((resolve) => this.listener.close(() => resolve()));
  }

  private pipe(client: Socket): void {
    const server = connect(this.target);
    const pair: Pair = { client, server, replies: 'pass' };
    this.pairs.add(pair);
    if (this.partitioned) {
      client.pause();
      server.pause();
    }
    client.on('data', (chunk) => server.write(chunk));
    server.on('data', (chunk: Buffer) => {
      if (Array.isArray(pair.replies)) pair.replies.push(chunk);
      else if (pair.replies === 'pass') client.write(chunk);
    });
    const end = () => {
      this.pairs.delete(pair);
      client.destroy();
      server.destroy();
    };
    for (const socket of [client, server]) {
      socket.on('close', end);
      socket.on('error', end);
    }
  }
}

interface Target {
  host: string;
  port: number;
}

/** A client's connection and the proxy's to the server; what becomes of the server's replies. */
interface Pair {
  client: Socket;
  server: Socket;
  replies: 'pass' | 'drop' | Buffer[];
}
