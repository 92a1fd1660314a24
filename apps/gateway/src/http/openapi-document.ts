import { ERRORS, type Json, json, schemas } from './openapi-parts';
import type { Slice } from './slice';

/** The document's own paths, and its browsable page's. */
const DOCUMENT_PATHS = {
  '/openapi.json': {
    get: {
      operationId: 'getOpenApi',
      summary: 'This document',
      tags: ['meta'],
      responses: { '200': { description: 'OpenAPI 3.1', content: { 'application/json': {} } } },
    },
  },
  '/docs': {
    get: {
      operationId: 'getDocs',
      summary: 'This document, browsable',
      tags: ['meta'],
      responses: { '200': { description: 'HTML', content: { 'text/html': {} } } },
    },
  },
};

/**
 * The OpenAPI 3.1 description of this gateway's HTTP API, built from the protocol's schemas and the
 * paths each slice describes.
 */
export function openApiDocument(baseUrl: string, slices: readonly Slice[]): Json {
  return {
    openapi: '3.1.0',
    info: {
      title: 'skillrun gateway',
      version: '1.0.0',
      description:
        'Discover, register and invoke skills. Invocation is asynchronous: POST invoke answers 202 with an execution_id; status and result read its state.',
    },
    servers: [{ url: baseUrl }],
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    paths: Object.assign({}, ...slices.map((slice) => slice.paths), DOCUMENT_PATHS) as Json,
    security: [{}, { apiKey: [] }, { bearer: [] }],
    components: {
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
      },
      schemas: JSON.parse(JSON.stringify(schemas)) as Json,
      responses: Object.fromEntries(
        Object.entries(ERRORS).map(([status, description]) => [
          `E${status}`,
          { description, content: json('ErrorEnvelope') },
        ]),
      ),
    },
  };
}
