import { type RequestHandler, Router } from 'express';
import swaggerUi from 'swagger-ui-express';
import { openApiDocument } from '../openapi/openapi-document';

/** Swagger UI answers any method; only reads reach it, the rest fall through to 404. */
const readsOnly: RequestHandler = (req, _res, next) => {
  next(req.method === 'GET' || req.method === 'HEAD' ? undefined : 'router');
};

/** GET /openapi.json (OpenAPI 3.1) and /docs, the same document browsable (Swagger UI, served locally). */
export function apiDocsRoutes(baseUrl: string): Router {
  const document = openApiDocument(baseUrl);
  const router = Router();
  router.get('/openapi.json', (_req, res) => {
    res.json(document);
  });
  router.use(
    '/docs',
    readsOnly,
    swaggerUi.serve,
    swaggerUi.setup(document, { customSiteTitle: 'skillrun API' }),
  );
  return router;
}
