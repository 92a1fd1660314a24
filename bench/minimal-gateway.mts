/**
 * Baseline B's gateway: the least an HTTP front of a job queue does. Express 5 in a process of its
 * own; `POST /invoke` adds a job with the options the service uses for a normal-priority
 * invocation (a UUID for job id, BullMQ's copy removed once finished) and answers 202 with that id.
 * No validation, no authentication, no execution record, no metrics, no logs per request.
 *
 * Env: REDIS_URL, QUEUE, QUEUE_PREFIX, PORT (0: any free port, printed in the ready line).
 */
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { Queue } from 'bullmq';
import express from 'express';
import { Redis } from 'ioredis';

const connection = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', {
  maxRetriesPerRequest: null,
});
const queue = new Queue(process.env.QUEUE ?? 'minimal', {
  connection,
  prefix: process.env.QUEUE_PREFIX ?? '{bench}',
});
await queue.waitUntilReady();

const app = express();
app.use(express.json());
app.post('/invoke', async (req, res) => {
  const executionId = randomUUID();
  await queue.add('invoke', req.body, { jobId: executionId, removeOnComplete: true, removeOnFail: true });
  res.status(202).json({ execution_id: executionId });
});

const server = app.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  console.log(JSON.stringify({ level: 30, msg: 'minimal gateway listening', port }));
});

process.once('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  void queue.close().then(() => {
    connection.disconnect();
    process.exit(0);
  });
});
