/** The keys of what a caller holds: its API keys, its memory, its A2A tasks and contexts. */
export class CallerKeys {
  constructor(private readonly prefix: string) {}

  /** HASH of one API key: its record's fields and the SHA-256 of its secret, never the key itself. */
  apiKey(id: string): string {
    return `${this.prefix}:api-key:${id}`;
  }

  /** SET of the ids of one caller's API keys, revoked ones included. */
  apiKeysOf(callerId: string): string {
    return `${this.prefix}:api-keys:caller:${callerId}`;
  }

  /** SET of every API key id, so keys are listed without SCAN. */
  apiKeyIds(): string {
    return `${this.prefix}:api-keys:ids`;
  }

  /** STRING: the nano-dollars one caller's executions cost on one UTC day (YYYY-MM-DD); it expires. */
  dailySpend(callerId: string, day: string): string {
    return `${this.prefix}:spend:caller:${callerId}:${day}`;
  }

  memory(callerId: string): string {
    return `${this.prefix}:memory:${callerId}`;
  }

  /** HASH of what A2A keeps of one task (an execution): the context it was sent in, its routing. */
  a2aTask(taskId: string): string {
    return `${this.prefix}:a2a:task:${taskId}`;
  }

  /** SET of the ids of the tasks one caller started in one A2A context. */
  a2aContext(owner: string, contextId: string): string {
    return `${this.prefix}:a2a:context:${owner}:${contextId}`;
  }
}
