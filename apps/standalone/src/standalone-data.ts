import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pingRedis } from '@skillrun/redis-server';

/**
 * The private data folder of `npm start`: `.data` at the repository's root, or SKILLRUN_DATA_DIR.
 * It holds the private redis-server's files, the URL of the Redis the running service uses (so
 * that `skillrun keys` finds it without REDIS_URL), and the local admin key. A file that holds a
 * secret (the key, a URL that may carry a password) is written 0600.
 */
export class StandaloneData {
  /** The private redis-server's working folder (its append-only file). */
  readonly redisDir: string;
  /** The Redis the running `npm start` uses, while it runs. */
  readonly redisUrlFile: string;
  /** The local admin key, in plain text: the only place it is kept so. */
  readonly adminKeyFile: string;

  constructor(readonly dir: string) {
    this.redisDir = join(dir, 'redis');
    this.redisUrlFile = join(dir, 'redis-url');
    this.adminKeyFile = join(dir, 'admin-key');
  }

  /** The data folder of the standalone of the repository at `repoRoot`. */
  static of(env: NodeJS.ProcessEnv, repoRoot: string): StandaloneData {
    return new StandaloneData(env.SKILLRUN_DATA_DIR || join(repoRoot, '.data'));
  }

  async writeRedisUrl(url: string): Promise<void> {
    await this.writeSecret(this.redisUrlFile, url);
  }

  async removeRedisUrl(): Promise<void> {
    await rm(this.redisUrlFile, { force: true });
  }

  /** The Redis of a running `npm start`: the one its file names, when that answers. */
  async runningRedisUrl(): Promise<string | undefined> {
    const url = await this.read(this.redisUrlFile);
    return url !== undefined && (await pingRedis(url)) ? url : undefined;
  }

  async readAdminKey(): Promise<string | undefined> {
    return this.read(this.adminKeyFile);
  }

  async writeAdminKey(key: string): Promise<void> {
    await this.writeSecret(this.adminKeyFile, key);
  }

  private async read(file: string): Promise<string | undefined> {
    try {
      return (await readFile(file, 'utf8')).trim() || undefined;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  /** Written beside and renamed over: never readable by others, never half written. */
  private async writeSecret(file: string, text: string): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    const fresh = `${file}.${process.pid}.tmp`;
    await writeFile(fresh, `${text}\n`, { mode: 0o600 });
    await rename(fresh, file);
  }
}
