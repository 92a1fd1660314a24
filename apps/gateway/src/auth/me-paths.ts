import { errors, ok } from '../http/openapi-parts';

/** GET /me's path. */
export const mePaths = {
  '/me': {
    get: {
      operationId: 'whoAmI',
      summary: 'Who the credentials say the caller is (ours)',
      description:
        'The caller.id an invocation with these credentials must name (any other is 403), its scopes and the skills it may use. 401 without valid credentials.',
      tags: ['meta'],
      responses: { '200': ok('The caller.', 'CallerIdentity'), ...errors('401', '503') },
    },
  },
};
