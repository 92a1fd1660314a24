import { randomUUID } from 'node:crypto';
import type { MemoryEntry, MemoryHit, SkillMemory } from '@skillrun/skill';
import type { Redis } from 'ioredis';
import { SkillError } from '../errors/skill-error';
import type { RedisKeys } from '../store/keys/redis-keys';

const MAX_ENTRIES_PER_CALLER = 10_000;

function terms(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/**
 * Long-term memory scoped to one caller (spec 003 section 6: what memory_store and memory_search
 * work on). Entries live in one Redis HASH per caller; search ranks them by how many query terms
 * they contain, weighted by how rare each term is among that caller's entries (tf-idf).
 */
export class MemoryStore implements SkillMemory {
  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly callerId: string,
  ) {}

  async store(text: string, options: { path?: string; tags?: string[] } = {}): Promise<MemoryEntry> {
    const key = this.keys.callers.memory(this.callerId);
    if ((await this.redis.hlen(key)) >= MAX_ENTRIES_PER_CALLER) {
      throw new SkillError('PARAM_OUT_OF_RANGE', `Memory is full (${MAX_ENTRIES_PER_CALLER} entries)`, {
        recoverable: false,
        suggestedAction: 'Use a new caller id, or ask an operator to prune this memory.',
      });
    }
    const id = randomUUID();
    const entry: MemoryEntry = {
      id,
      text,
      path: options.path ?? `memory/${id}`,
      tags: options.tags ?? [],
      created_at: new Date().toISOString(),
    };
    await this.redis.hset(key, id, JSON.stringify(entry));
    return entry;
  }

  async search(query: string, limit: number): Promise<MemoryHit[]> {
    const entries = Object.values(await this.redis.hgetall(this.keys.callers.memory(this.callerId))).map(
      (json) => JSON.parse(json) as MemoryEntry,
    );
    const wanted = [...new Set(terms(query))];
    if (wanted.length === 0 || entries.length === 0) return [];
    const documents = entries.map((entry) => ({
      entry,
      words: terms(`${entry.text} ${entry.tags.join(' ')}`),
    }));
    const idf = new Map(
      wanted.map((term) => {
        const containing = documents.filter(({ words }) => words.includes(term)).length;
        return [term, Math.log(1 + entries.length / (1 + containing))];
      }),
    );
    return documents
      .map(({ entry, words }) => {
        const score = wanted.reduce((sum, term) => {
          const frequency = words.filter((word) => word === term).length / Math.max(words.length, 1);
          return sum + frequency * (idf.get(term) ?? 0);
        }, 0);
        return { id: entry.id, snippet: entry.text, path: entry.path, score: Number(score.toFixed(6)) };
      })
      .filter((hit) => hit.score > 0)
      .sort((a, b) => b.score - a.score || a.id.localeCompare(b.id))
      .slice(0, limit);
  }
}
