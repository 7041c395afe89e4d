/**
 * /call-history (spec document 2; scope calls:read): an organisation's calls for reports, their Excel export, and a
 * call's transcript in spoken order.
 */
import { PassThrough } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { ok } from '../../../http/envelope.ts';
import { principalOf } from '../../../plugins/app/auth.ts';
import { primedBatches } from '../../../http/primed-batches.ts';
import { writeCallWorkbook } from '../../../calls/history/excel-export.ts';
import * as schemas from './schemas.ts';
import { CallHistoryService } from '../../../calls/history/history-service.ts';

export interface CallHistoryRoutesOptions {
  /** Base URL of this server, for the full recording links of the export. */
  publicUrl: string;
}

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

export default async function callHistoryRoutes(app: FastifyInstance, options: CallHistoryRoutesOptions) {
  const history = new CallHistoryService(app.sql);

  app.get<{ Params: { orgId: string }; Querystring: schemas.HistoryQuery }>(
    '/call-history/sessions/organization/:orgId',
    { schema: schemas.listHistory, config: { scope: 'calls:read' } },
    async (request) => ok(await history.list(principalOf(request), request.query)),
  );

  app.get<{ Params: { orgId: string }; Querystring: schemas.HistoryFilters }>(
    '/call-history/sessions/organization/:orgId/export',
    { schema: schemas.exportHistory, config: { scope: 'calls:read' } },
    async (request, reply) => {
      const condition = history.exportCondition(principalOf(request), request.query);
      const batches = await primedBatches(history.exportBatches(condition));
      const body = new PassThrough();
      const day = new Date().toISOString().slice(0, 10);
      void writeCallWorkbook(body, batches, options.publicUrl).then(
        (rows) => request.log.info({ rows }, 'call history exported'),
        (error: unknown) => {
          request.log.error({ err: error }, 'call history export failed');
          body.destroy(error instanceof Error ? error : new Error(String(error)));
        },
      );
      return reply.type(XLSX).header('content-disposition', `attachment; filename="calls-${day}.xlsx"`).send(body);
    },
  );

  app.get<{ Params: { roomName: string } }>(
    '/call-history/sessions/room/:roomName/transcripts',
    { schema: schemas.transcripts, config: { scope: 'calls:read' } },
    async (request) => ok(await history.transcript(principalOf(request), request.params.roomName)),
  );
}
