import type { Logger } from '@skillrun/core';
import express, { type Express } from 'express';
import type { GatewayMetrics } from '../metrics/gateway-metrics';
import { httpMetrics } from '../metrics/http-metrics';
import { answerHeaders } from './answer-headers';
import { apiDocsRoutes, openApiRoutes } from './api-docs-routes';
import { errorHandler, notFound } from './error-handler';
import { jsonBody } from './json-body';
import { jsonRpcErrors } from './json-rpc-errors';
import { openApiDocument } from './openapi-document';
import type { Slice } from './slice';

/** What the app itself needs, beside the slices it mounts. */
export interface AppSettings {
  metrics: GatewayMetrics;
  logger: Logger;
  baseUrl: string;
  bodyLimitBytes: number;
  maxJsonDepth: number;
  /** Express' `trust proxy`: which proxies' X-Forwarded-For names the client (TRUST_PROXY). */
  trustProxy?: boolean | number | string;
}

/**
 * The gateway's HTTP API, built from its slices so that tests can drive it. Each slice's routers
 * are mounted under their prefixes in the order given, so that a request descends only into its
 * own (the first, under /skills, are the hot path); errors at the slices' JSON-RPC endpoints are
 * answered in JSON-RPC, any other in our envelope; the OpenAPI document is made of the slices' paths.
 * Security headers are sized for what is answered: `nosniff` on every answer, helmet's full set on
 * the HTML pages (/docs, /admin/queues, the console at /console) only. Every answer names the
 * service's description at its public base URL (a Link header), which clients take as its origin.
 */
export function createApp(settings: AppSettings, slices: readonly Slice[]): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  if (settings.trustProxy !== undefined) app.set('trust proxy', settings.trustProxy);
  app.use(httpMetrics(settings.metrics));
  app.use(answerHeaders(settings.baseUrl));
  for (const { path, router } of slices.flatMap((slice) => slice.before ?? [])) app.use(path, router);
  app.use(jsonBody(settings.bodyLimitBytes, settings.maxJsonDepth));
  for (const { path, router } of slices.flatMap((slice) => slice.routes)) app.use(path, router);
  // What a JSON-RPC endpoint refuses, the parser's refusal of a body that is not JSON included.
  for (const endpoint of slices.flatMap((slice) => slice.jsonRpc ?? [])) {
    app.use(endpoint.path, jsonRpcErrors(settings.logger, endpoint));
  }
  const document = openApiDocument(settings.baseUrl, slices);
  app.use('/openapi.json', openApiRoutes(document));
  app.use('/docs', apiDocsRoutes(document));
  app.use(notFound());
  app.use(errorHandler(settings.logger));
  return app;
}
