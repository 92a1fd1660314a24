import type { RequestHeaders } from '../../http/request-headers';
import type { AgentDeps } from '../agent-deps';
import { type McpErrorFields, mcpAnswerOf } from './mcp-error-of';

/** How one era's MCP server answers with errors, and where its handlers find the request's headers. */
export interface McpErrorStyle<E> {
  /** The era's JSON-RPC error: McpError (SDK 1.x) or ProtocolError (SDK 2.x). */
  error: (fields: McpErrorFields) => Error;
  /** The request's header fields, from what its handler is handed besides the request. */
  headersOf: (extra: E) => RequestHeaders;
}

/**
 * A wrapper for every request handler of an MCP server (either era), so that whatever a handler
 * throws is answered as mcpAnswerOf says: our errors as theirs, a fault of our own code logged
 * once and answered Internal error. The one place MCP's faults are logged: no handler logs its own.
 */
export function withMcpErrors<E>(deps: AgentDeps, style: McpErrorStyle<E>) {
  return <Q, X extends E, R>(method: string, handler: (request: Q, extra: X) => Promise<R>) =>
    async (request: Q, extra: X): Promise<R> => {
      try {
        return await handler(request, extra);
      } catch (error) {
        const fields = mcpAnswerOf(error, { logger: deps.logger, headers: style.headersOf(extra), method });
        throw fields ? style.error(fields) : error;
      }
    };
}
