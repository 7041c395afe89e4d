/** /api-keys: who a key is, and the widget tokens of chat agents (spec document 2, API keys and widget tokens). */
import type { FastifyInstance } from 'fastify';
import { MANAGER_ROLES } from '../../../auth/scopes.ts';
import { ok } from '../../../http/envelope.ts';
import { principalOf } from '../../../plugins/app/auth.ts';
import * as schemas from './schemas.ts';
import { WidgetTokenService } from '../../../auth/widget-token-service.ts';

export default async function apiKeyRoutes(app: FastifyInstance) {
  const widgetTokens = new WidgetTokenService(app.sql, app.keys);
  const widgetLimit = app.limit('widget', 'key');

  app.get('/api-keys/me', { schema: schemas.me, config: { scope: [] } }, async (request) => {
    const p = principalOf(request);
    return ok({
      keyId: p.keyId,
      name: p.keyName,
      organisationId: p.organisationId,
      userId: p.userId,
      role: p.role,
      scopes: [...p.scopes],
      features: [...p.features],
      audience: p.audience,
    });
  });

  app.get<{ Querystring: schemas.ListWidgetQuery }>(
    '/api-keys/widget',
    { schema: schemas.listWidgetTokens, config: { scope: 'agents:read' }, preHandler: [widgetLimit] },
    async (request) => ok(await widgetTokens.list(principalOf(request), request.query.agent_id)),
  );

  app.post<{ Body: schemas.CreateWidgetBody }>(
    '/api-keys/widget',
    {
      schema: schemas.createWidgetToken,
      config: { scope: 'agents:write', roles: MANAGER_ROLES },
      preHandler: [widgetLimit],
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(
          ok(
            await widgetTokens.create(principalOf(request), request.body),
            'Widget token created: copy it now, it is shown once',
          ),
        ),
  );

  app.post<{ Body: schemas.RevokeWidgetBody }>(
    '/api-keys/widget/revoke',
    { schema: schemas.revokeWidgetToken, config: { scope: 'agents:write' }, preHandler: [widgetLimit] },
    async (request) => ok(await widgetTokens.revoke(principalOf(request), request.body), 'Widget token revoked'),
  );
}
