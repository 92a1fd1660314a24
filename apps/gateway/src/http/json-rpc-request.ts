import { SkillError } from '@skillrun/core';

type Json = Record<string, unknown>;

/** Why a parsed body is not a JSON-RPC 2.0 request object (§4), or undefined when it is one. */
function flawOf(body: unknown): { path: string; message: string } | undefined {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    return { path: '/', message: 'must be a JSON-RPC request object' };
  }
  const { jsonrpc, method, id } = body as Json;
  if (jsonrpc !== '2.0') return { path: '/jsonrpc', message: 'must be "2.0"' };
  if (typeof method !== 'string' || method === '') {
    return { path: '/method', message: 'must be the name of a method' };
  }
  const validId = id === undefined || id === null || typeof id === 'string' || Number.isInteger(id);
  if (!validId) return { path: '/id', message: 'must be a string, an integer or null' };
  return undefined;
}

/**
 * Refuses a body that is JSON but not a JSON-RPC 2.0 request (its `jsonrpc`, `method` or `id`
 * wrong), with INVALID_INPUT, which a JSON-RPC endpoint answers as Invalid Request (-32600).
 */
export function assertJsonRpcRequest(body: unknown): void {
  const flaw = flawOf(body);
  if (flaw) {
    throw new SkillError('INVALID_INPUT', `Not a JSON-RPC 2.0 request: ${flaw.path} ${flaw.message}`, {
      details: [flaw],
    });
  }
}
