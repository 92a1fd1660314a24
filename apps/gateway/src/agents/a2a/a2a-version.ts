import { A2A_PROTOCOL_VERSION, A2A_VERSION_HEADER } from '@a2a-js/sdk';
import type { Request } from 'express';

/**
 * Sets A2A-Version to 1.0 on a JSON-RPC request that names no version but calls a method by its
 * 1.0 name (SendMessage, GetTask, ...), which the SDK would otherwise take for 0.3 (its default for
 * a request without the header) and refuse as unknown. Every 0.3 method name has a slash
 * (message/send, tasks/get) and no 1.0 name has one, so the two cannot be confused; a request
 * without the header that uses a 0.3 name stays 0.3.
 */
export function applyImpliedVersion(req: Request): void {
  if (req.header(A2A_VERSION_HEADER) !== undefined) return;
  const method = (req.body as { method?: unknown }).method;
  if (typeof method === 'string' && !method.includes('/')) {
    req.headers[A2A_VERSION_HEADER.toLowerCase()] = A2A_PROTOCOL_VERSION;
  }
}
