import { ProtocolError } from '@modelcontextprotocol/server';
import { mcpErrorOf } from './mcp-error-of';

/**
 * What `run` answers, its refusals (our errors) as the JSON-RPC errors of revision 2026-07-28
 * (SDK 2.x, mcpErrorOf): not found and bad requests as Invalid params, with our envelope as
 * `data`. Anything else is thrown on, for the SDK to answer as Internal error.
 */
export async function withProtocolErrors<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    const fields = mcpErrorOf(error);
    if (!fields) throw error;
    throw new ProtocolError(fields.code, fields.message, fields.data);
  }
}
