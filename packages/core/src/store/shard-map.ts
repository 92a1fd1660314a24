import { createHash, randomBytes } from 'node:crypto';
import calculateSlot from 'cluster-key-slot';

/** Virtual shards: an id carries one, each has its own hash tag (its band of 64 of the 16384 slots). */
export const VSHARDS = 256;

const SLOTS_PER_VSHARD = 16_384 / VSHARDS;

/**
 * A sharded id: UUID-shaped (ajv's `uuid` and every internal schema accept it), version nibble 8,
 * variant nibble c, then the vshard in two hex digits, the other 112 bits random (a schedule run's:
 * a digest). `randomUUID()` (version 4) and a schedule run's legacy id (runExecutionId: version 8,
 * variant 8 to b) never match.
 */
const SHARDED_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-c([0-9a-f]{2})[0-9a-f]-[0-9a-f]{12}$/;

/** The tag table of each prefix's inner name: the same for every ShardMap, so computed once. */
const tables = new Map<string, readonly string[]>();

/**
 * Where an execution's keys live on a Redis Cluster (docs/design/sharding.md, design B). Each of the
 * 256 vshards has a hash tag, `{<inner>:j}` (inner: KEY_PREFIX without its braces) for the first j
 * whose slot lies in the vshard's band: a table that depends on the prefix alone, so an id's vshard
 * never changes meaning. A sharded id names its vshard (SHARDED_ID); any other id is legacy and
 * lives under KEY_PREFIX, as every key did before sharding. `shards` (REDIS_SHARDS) is how many
 * vshards take new executions: one in the middle of each master's range under the even split that
 * `redis-cli --cluster create` makes.
 */
export class ShardMap {
  constructor(
    readonly prefix: string,
    readonly shards = 1,
  ) {}

  /** The vshards new executions go to: `floor((k + ½) · 256 / shards)` for each k < shards. */
  active(): number[] {
    return Array.from({ length: this.shards }, (_, k) => Math.floor(((k + 0.5) * VSHARDS) / this.shards));
  }

  /**
   * Every hash tag executions are on, which the readers of their queues and streams follow: the
   * prefix (legacy ids: every one at one shard), then each active vshard's when there are more.
   */
  tags(): string[] {
    return [this.prefix, ...(this.shards > 1 ? this.active().map((vshard) => this.tag(vshard)) : [])];
  }

  /** The hash tag of a vshard (0 to 255). */
  tag(vshard: number): string {
    return tagTable(innerOf(this.prefix))[checked(vshard)] as string;
  }

  /**
   * A new execution id on `vshard`, made of `hex` (32 hex digits: random by default; a digest for an
   * id that must be the same at every try, as a schedule run's), those the marker takes aside.
   */
  mintId(vshard: number, hex = randomBytes(16).toString('hex')): string {
    return marked(hex, vshard);
  }

  /**
   * A UUID-shaped id moved onto `vshard`: its marker set, its other bits kept, so the same for the
   * same two (a schedule run's id, derived from its due time, pinned to its skill's home).
   */
  pinId(id: string, vshard: number): string {
    return marked(id.replaceAll('-', ''), vshard);
  }

  /**
   * A skill's home: the active vshard its gated (concurrency-limited) and debounced executions, and
   * every key of its flow control and debounce, are on, so that those scripts stay in one slot. A
   * digest of the skill id picks it among the active vshards: the same in every process for one
   * REDIS_SHARDS. Undefined at one shard: all of them under the prefix, as before sharding.
   */
  home(skillId: string): number | undefined {
    if (this.shards === 1) return undefined;
    const digest = createHash('sha256').update(skillId).digest();
    return this.active()[digest.readUInt32BE(0) % this.shards] as number;
  }

  /** The hash tag of a skill's home (the prefix at one shard). */
  homeTag(skillId: string): string {
    const vshard = this.home(skillId);
    return vshard === undefined ? this.prefix : this.tag(vshard);
  }

  /** The vshard a sharded id names; undefined for a legacy id (it lives under the prefix). */
  vshardOf(id: string): number | undefined {
    const marker = SHARDED_ID.exec(id)?.[1];
    return marker === undefined ? undefined : Number.parseInt(marker, 16);
  }

  /** The hash tag an execution's keys (record, outcome, chunks, job, queue) start with. */
  tagOf(id: string): string {
    const vshard = this.vshardOf(id);
    return vshard === undefined ? this.prefix : this.tag(vshard);
  }
}

/** 32 hex digits as a sharded id on `vshard` (SHARDED_ID). */
function marked(hex: string, vshard: number): string {
  // Hex digit 12 is a UUID's version, 16 its variant; 17 and 18 carry the vshard.
  const digits = `${hex.slice(0, 12)}8${hex.slice(13, 16)}c${checked(vshard).toString(16).padStart(2, '0')}${hex.slice(19, 32)}`;
  return `${digits.slice(0, 8)}-${digits.slice(8, 12)}-${digits.slice(12, 16)}-${digits.slice(16, 20)}-${digits.slice(20)}`;
}

function checked(vshard: number): number {
  if (!Number.isInteger(vshard) || vshard < 0 || vshard >= VSHARDS) {
    throw new RangeError(`no vshard ${vshard}: they are 0 to ${VSHARDS - 1}`);
  }
  return vshard;
}

/** `skillrun` of `{skillrun}`; an unbraced prefix (which REDIS_SHARDS > 1 refuses) as it is. */
function innerOf(prefix: string): string {
  return /^\{([^{}]+)\}$/.exec(prefix)?.[1] ?? prefix;
}

function tagTable(inner: string): readonly string[] {
  let table = tables.get(inner);
  if (!table) {
    table = computeTagTable(inner);
    tables.set(inner, table);
  }
  return table;
}

/** Tries `{inner:0}`, `{inner:1}`, … until every band has its first (a few hundred CRC16s). */
function computeTagTable(inner: string): string[] {
  const table = new Array<string | undefined>(VSHARDS).fill(undefined);
  let missing = VSHARDS;
  for (let j = 0; missing > 0; j++) {
    const tag = `{${inner}:${j}}`;
    const band = Math.floor(calculateSlot(tag) / SLOTS_PER_VSHARD);
    if (table[band] === undefined) {
      table[band] = tag;
      missing--;
    }
  }
  return table as string[];
}
