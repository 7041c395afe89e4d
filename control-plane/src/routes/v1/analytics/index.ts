/**
 * /analytics (spec document 2, Analytics; scope analytics:read): on-demand analyses of a call through the
 * installation's language model. Rate limited per calling host and per key (spec document 3: 20 a minute each).
 */
import type { FastifyInstance } from 'fastify';
import { ok } from '../../../http/envelope.ts';
import { principalOf } from '../../../plugins/app/auth.ts';
import { CallAnalyst } from '../../../calls/analysis/call-analyst.ts';
import * as schemas from './schemas.ts';
import { AnalyticsService } from '../../../calls/analysis/analytics-service.ts';

export interface AnalyticsRoutesOptions {
  /** The LLM workers' model name, recorded on reports; unknown to the API alone ("default"). */
  model?: string;
}

export default async function analyticsRoutes(app: FastifyInstance, options: AnalyticsRoutesOptions = {}) {
  const analytics = new AnalyticsService(app.sql, new CallAnalyst(app.bus), options.model);
  const limits = [app.limit('analytics', 'ip'), app.limit('analytics', 'key')];

  app.post<{ Body: schemas.AnalyzeBody }>(
    '/analytics/analyze',
    { schema: schemas.analyze, config: { scope: 'analytics:read' }, preHandler: limits },
    async (request) => ok(await analytics.analyze(principalOf(request), request.body)),
  );

  app.post<{ Body: schemas.OverviewBody }>(
    '/analytics/analyze-overview',
    { schema: schemas.analyzeOverview, config: { scope: 'analytics:read' }, preHandler: limits },
    async (request) => ok(await analytics.analyzeOverview(principalOf(request), request.body.roomName)),
  );
}
