import type { RequestHandler } from 'express';
import type { Json } from './openapi-parts';

/** A router, and the prefix the app mounts it at (`/` for one whose routes name their whole path). */
export interface Mount {
  path: string;
  router: RequestHandler;
}

/**
 * What a resource's folder gives the app: its routers, the OpenAPI paths that describe them, and
 * what to close when the gateway stops. The app mounts the slices in the order it is given them.
 */
export interface Slice {
  routes: readonly Mount[];
  paths: Json;
  close?: () => void | Promise<void>;
}
