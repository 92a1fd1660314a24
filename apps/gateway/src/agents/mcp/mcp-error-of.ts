import type { ErrorEnvelope } from '@skillrun/core';
import { knownErrorOf } from '../../http/known-error';

/** A JSON-RPC error's fields, as either era's SDK error class takes them. */
export interface McpErrorFields {
  code: number;
  message: string;
  data: ErrorEnvelope;
}

/** JSON-RPC's Invalid params and Internal error, the codes MCP answers a refused request with. */
const INVALID_PARAMS = -32602;
const INTERNAL_ERROR = -32603;

/**
 * One of our errors as the JSON-RPC error an MCP request answers (tools/list, the tasks methods):
 * not found and bad requests as Invalid params, Redis away as Internal error, with our envelope as
 * `data`; undefined for a fault of our own code, which the SDK answers as Internal error.
 */
export function mcpErrorOf(error: unknown): McpErrorFields | undefined {
  const known = knownErrorOf(error);
  if (!known) return undefined;
  const code = known.code === 'SERVICE_UNAVAILABLE' ? INTERNAL_ERROR : INVALID_PARAMS;
  return { code, message: known.message, data: { error: known.toBody() } };
}
