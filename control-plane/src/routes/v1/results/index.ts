/**
 * Per-agent results (spec document 2, Results; scope calls:read): the summary, result rows, the CSV export and the
 * organisation's default agent. The agent must be a live agent of the key's organisation (404 otherwise).
 */
import { PassThrough } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { ok } from '../../../http/envelope.ts';
import { principalOf } from '../../../plugins/app/auth.ts';
import { primedBatches } from '../../../http/primed-batches.ts';
import { writeResultsCsv } from '../../../calls/results/csv-export.ts';
import * as schemas from './schemas.ts';
import { ResultsService } from '../../../calls/results/results-service.ts';

export interface ResultsRoutesOptions {
  /** Base URL of this server, for the export's full recording links. */
  publicUrl: string;
}

type AgentParams = { agentId: string };

export default async function resultsRoutes(app: FastifyInstance, options: ResultsRoutesOptions) {
  const results = new ResultsService(app.sql, options.publicUrl);

  app.get<{ Params: AgentParams; Querystring: schemas.ResultsFilters }>(
    '/voice/agents/:agentId/results/summary',
    { schema: schemas.summary, config: { scope: 'calls:read' } },
    async (request) => ok(await results.summary(principalOf(request), request.params.agentId, request.query)),
  );

  app.get<{ Params: AgentParams; Querystring: schemas.ResultsQuery }>(
    '/voice/agents/:agentId/results',
    { schema: schemas.results, config: { scope: 'calls:read' } },
    async (request) => ok(await results.results(principalOf(request), request.params.agentId, request.query)),
  );

  app.get<{ Params: AgentParams; Querystring: schemas.ResultsFilters }>(
    '/voice/agents/:agentId/results/export',
    { schema: schemas.exportResults, config: { scope: 'calls:read' } },
    async (request, reply) => {
      const exported = await results.export(principalOf(request), request.params.agentId, request.query);
      const batches = await primedBatches(exported.batches);
      const context = exported.context;
      const body = new PassThrough();
      void writeResultsCsv(body, batches, context).then(
        (rows) => request.log.info({ rows }, 'results exported'),
        (error: unknown) => {
          request.log.error({ err: error }, 'results export failed');
          body.destroy(error instanceof Error ? error : new Error(String(error)));
        },
      );
      return reply
        .type('text/csv; charset=utf-8')
        .header(
          'content-disposition',
          `attachment; filename="results-${request.params.agentId}-${new Date().toISOString().slice(0, 10)}.csv"`,
        )
        .send(body);
    },
  );

  app.get<{ Params: { organisationId: string } }>(
    '/voice/organisations/:organisationId/results/default-agent',
    { schema: schemas.defaultAgent, config: { scope: 'calls:read' } },
    async (request) => ok(await results.defaultAgent(principalOf(request))),
  );
}
