import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';

/** JSON-RPC error code of UnsupportedProtocolVersionError (revision 2026-07-28). */
const UNSUPPORTED_PROTOCOL_VERSION = -32022;

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The list of versions an answer of the stateless handler names: a discovery's, or an unsupported version's. */
function versionListOf(body: Json): { holder: Json; key: string; versions: unknown[] } | undefined {
  const { result, error } = body;
  if (isObject(result) && Array.isArray(result.supportedVersions)) {
    return { holder: result, key: 'supportedVersions', versions: result.supportedVersions };
  }
  if (isObject(error) && error.code === UNSUPPORTED_PROTOCOL_VERSION && isObject(error.data)) {
    const { supported } = error.data;
    if (Array.isArray(supported)) return { holder: error.data, key: 'supported', versions: supported };
  }
  return undefined;
}

/**
 * A server/discover answer or an UnsupportedProtocolVersionError of the stateless handler, naming
 * the revisions the sessions serve after its own: /mcp is dual-era, and the revision has such a
 * server name every version it supports (its versioning page), while the SDK names only the ones
 * it serves per request. A dual-era client takes the legacy ones by initialize, as the
 * compatibility matrix says; the SDK's client chooses only among modern ones, so they never mislead
 * it. Any other answer is returned as it is.
 */
export async function withSessionVersions(response: Response): Promise<Response> {
  if (!response.headers.get('content-type')?.startsWith('application/json')) return response;
  const body: unknown = await response.clone().json();
  const list = isObject(body) ? versionListOf(body) : undefined;
  if (!list) return response;
  list.holder[list.key] = [...new Set([...list.versions, ...SUPPORTED_PROTOCOL_VERSIONS])];
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  return new Response(JSON.stringify(body), { status: response.status, headers });
}
