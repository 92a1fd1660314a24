import { type RequestHandler, Router } from 'express';
import { measuredRouter } from '../metrics/measured-router';
import { htmlPageHeaders } from './html-page-headers';
import { lazyRouter } from './lazy-router';

/** Swagger UI answers any method; only reads reach it, the rest fall through to 404. */
const readsOnly: RequestHandler = (req, _res, next) => {
  next(req.method === 'GET' || req.method === 'HEAD' ? undefined : 'router');
};

/** GET /openapi.json (the router is mounted there): the OpenAPI 3.1 document. */
export function openApiRoutes(document: object): Router {
  const router = measuredRouter();
  router.get('', (_req, res) => {
    res.json(document);
  });
  return router;
}

/**
 * The document as Swagger UI renders it: without `jsonSchemaDialect`, which Swagger UI supports only
 * at OpenAPI's default and otherwise answers with a red warning box. The default dialect is draft
 * 2020-12 with OpenAPI's vocabulary, a superset of ours; /openapi.json keeps naming 2020-12.
 */
function forSwaggerUi(document: object): object {
  const { jsonSchemaDialect: _dialect, ...rest } = document as Record<string, unknown>;
  return rest;
}

/**
 * /docs (the router is mounted there): the same document browsable (Swagger UI, served locally),
 * an HTML page, with helmet's headers.
 */
export function apiDocsRoutes(document: object): Router {
  const router = Router();
  router.use(
    readsOnly,
    htmlPageHeaders(),
    lazyRouter(async () => {
      const { default: swaggerUi } = await import('swagger-ui-express');
      return Router().use(
        swaggerUi.serve,
        swaggerUi.setup(forSwaggerUi(document), {
          customSiteTitle: 'skillrun API',
          // No badge from validator.swagger.io: the page asks nothing of any host but this one.
          swaggerOptions: { validatorUrl: null },
        }),
      );
    }),
  );
  return router;
}
