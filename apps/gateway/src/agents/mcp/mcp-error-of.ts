import type { ErrorEnvelope, Logger } from '@skillrun/core';
import { knownErrorOf } from '../../http/known-error';
import type { RequestHeaders } from '../../http/request-headers';
import { agentFault } from '../agent-error';

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
 * `data`; undefined for anything else.
 */
export function mcpErrorOf(error: unknown): McpErrorFields | undefined {
  const known = knownErrorOf(error);
  if (!known) return undefined;
  const code = known.code === 'SERVICE_UNAVAILABLE' ? INTERNAL_ERROR : INVALID_PARAMS;
  return { code, message: known.message, data: { error: known.toBody() } };
}

/** The request an MCP handler answers, for the log line of a fault met answering it. */
export interface McpRequestPlace {
  logger: Logger;
  headers: RequestHeaders;
  method: string;
}

/**
 * Anything an MCP request's handler throws as the JSON-RPC error it answers: undefined for a
 * protocol error (the SDKs' own or ours: a numeric code), which the SDK answers as it is; our
 * errors as mcpErrorOf says; a fault of our own code logged once (agentFault) and answered
 * Internal error with our envelope (the request's id) as `data`. Without this the SDK answers a
 * fault with its own message (a Redis reply, a TypeError's text) and nobody logs it.
 */
export function mcpAnswerOf(error: unknown, place: McpRequestPlace): McpErrorFields | undefined {
  if (Number.isSafeInteger((error as { code?: unknown } | undefined)?.code)) return undefined;
  const known = mcpErrorOf(error);
  if (known) return known;
  const fault = agentFault(error, place.logger, place.headers, `mcp ${place.method}`);
  return { code: INTERNAL_ERROR, message: fault.message, data: { error: fault.toBody() } };
}
