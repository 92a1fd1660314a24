import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import { promisify } from 'node:util';
import { NetworkNamespace } from './network-namespace';
import { repoRoot } from './service-process';

const run = promisify(execFile);

/**
 * Hosts on one LAN, each a network namespace of its own (NetworkNamespace) with one interface on a
 * bridge, and this process on the bridge too (its address ends in .254), so that the test reaches
 * every host and each host's link can be cut without closing a connection: a partition as a
 * switch port going dark would make it. The subnet is a random 10.x.y.0/24 of the test's own; all
 * of it (bridge, links, namespaces and what runs in them) goes with `delete()`. Takes what
 * NetworkNamespace does (root, `ip netns`): see `NetworkNamespace.available()`.
 */
export class LocalNetwork {
  private readonly hosts: Host[] = [];

  private constructor(
    private readonly bridge: string,
    private readonly subnet: string,
  ) {}

  static async create(): Promise<LocalNetwork> {
    const bridge = `srbr-${randomBytes(3).toString('hex')}`;
    const network = new LocalNetwork(bridge, `10.${randomInt(100, 250)}.${randomInt(1, 250)}`);
    await run('ip', ['link', 'add', bridge, 'type', 'bridge']);
    try {
      await run('ip', ['addr', 'add', `${network.subnet}.254/24`, 'dev', bridge]);
      await run('ip', ['link', 'set', bridge, 'up']);
    } catch (error) {
      await network.delete();
      throw error;
    }
    return network;
  }

  /** A new host on the LAN at `.number` (1-253). */
  async host(number: number): Promise<Host> {
    const namespace = await NetworkNamespace.create();
    // The bridge's end keeps a name of the test's own; the host's is eth0, as on a machine.
    const port = `${this.bridge.replace('srbr', 'srp')}${number.toString(16).padStart(2, '0')}`;
    const host = new Host(namespace, `${this.subnet}.${number}`, port);
    this.hosts.push(host);
    const inside = ['-n', namespace.name];
    await run('ip', ['link', 'add', port, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', namespace.name]);
    await run('ip', ['link', 'set', port, 'master', this.bridge, 'up']);
    await run('ip', [...inside, 'addr', 'add', `${host.address}/24`, 'dev', 'eth0']);
    await run('ip', [...inside, 'link', 'set', 'eth0', 'up']);
    return host;
  }

  /** Kills what runs on every host, and takes the hosts, their links and the bridge away. */
  async delete(): Promise<void> {
    for (const host of this.hosts) await host.namespace.delete().catch(() => {});
    await run('ip', ['link', 'delete', this.bridge]).catch(() => {});
  }
}

/** One host of a LocalNetwork. */
export class Host {
  constructor(
    readonly namespace: NetworkNamespace,
    /** Its address on the LAN. */
    readonly address: string,
    /** Its link's end on the bridge. */
    private readonly port: string,
  ) {}

  /** Starts `command` on the host, from the repository's root, output ignored. */
  spawn(command: string, args: string[]): ChildProcess {
    const child = spawn(this.namespace.exec[0] ?? 'ip', [...this.namespace.exec.slice(1), command, ...args], {
      cwd: repoRoot,
      stdio: 'ignore',
    });
    child.on('error', () => {});
    return child;
  }

  /**
   * Cuts its link (its port on the bridge goes down): whatever it sends, and whatever is sent to
   * it, is lost from now on; nothing is closed, nor told of it, on either side.
   */
  async cut(): Promise<void> {
    await run('ip', ['link', 'set', this.port, 'down']);
  }

  async heal(): Promise<void> {
    await run('ip', ['link', 'set', this.port, 'up']);
  }

  /**
   * Drops what it sends to `others` (a blackhole route to each): done on both sides, a partition
   * between them that leaves the rest of the LAN, and this process, as they were.
   */
  async drop(others: readonly Host[]): Promise<void> {
    for (const other of others)
      await run('ip', ['-n', this.namespace.name, 'route', 'add', 'blackhole', `${other.address}/32`]);
  }

  /** Undoes `drop(others)`. */
  async undrop(others: readonly Host[]): Promise<void> {
    for (const other of others)
      await run('ip', ['-n', this.namespace.name, 'route', 'del', 'blackhole', `${other.address}/32`]);
  }
}
