import { Router } from 'express';
import swaggerUi from 'swagger-ui-express';
import { openApiDocument } from '../openapi/openapi-document';

/** GET /openapi.json (OpenAPI 3.1) and /docs, the same document browsable (Swagger UI, served locally). */
export function apiDocsRoutes(baseUrl: string): Router {
  const document = openApiDocument(baseUrl);
  const router = Router();
  router.get('/openapi.json', (_req, res) => {
    res.json(document);
  });
  router.use('/docs', swaggerUi.serve, swaggerUi.setup(document, { customSiteTitle: 'skillrun API' }));
  return router;
}
