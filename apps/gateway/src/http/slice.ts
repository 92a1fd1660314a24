import type { RequestHandler } from 'express';
import type { JsonRpcEndpoint } from './json-rpc-errors';
import type { Json } from './openapi-parts';

/** A router, and the prefix the app mounts it at (`/` for one whose routes name their whole path). */
export interface Mount {
  path: string;
  router: RequestHandler;
}

/**
 * What a resource's folder gives the app: its routers, the OpenAPI paths that describe them, what
 * to start with the gateway (a consumer of a queue), and what to close when the gateway stops. The app mounts the slices in the order it is given them.
 */
export interface Slice {
  routes: readonly Mount[];
  /**
   * Mounted ahead of every slice's routes, before the body is parsed: what must see each request of
   * its paths whatever becomes of it (the audit of administrative acts).
   */
  before?: readonly Mount[];
  /** Its endpoints that speak JSON-RPC: the app answers every refusal there in JSON-RPC. */
  jsonRpc?: readonly JsonRpcEndpoint[];
  paths: Json;
  /** Started once the gateway has met Redis (or waited for it), before it listens. */
  start?: () => void | Promise<void>;
  close?: () => void | Promise<void>;
}
