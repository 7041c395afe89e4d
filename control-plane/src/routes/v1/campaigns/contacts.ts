/**
 * A campaign's contacts (what the spec leaves out of REST and users need): add up to 500 (campaigns:write), upload
 * a CSV or XLSX file read in the background (campaigns:write), list them with their call status and read an
 * upload (campaigns:read).
 */
import { PassThrough } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { writeContactsCsv } from '../../../campaigns/contacts-export.ts';
import { ok } from '../../../http/envelope.ts';
import { principalOf } from '../../../plugins/app/auth.ts';
import type { Campaigns } from '../../../campaigns/campaigns.ts';
import { addContacts, assertTakesContacts } from '../../../campaigns/contacts.ts';
import { listContacts } from '../../../campaigns/contact-repository.ts';
import { formatOf } from '../../../campaigns/contact-file.ts';
import { countContacts, findCampaign, lockCampaign } from '../../../campaigns/repository.ts';
import { findUpload, insertUpload, type UploadRow } from '../../../campaigns/upload-repository.ts';
import { newId } from '../../../db/ids.ts';
import { ApiError, badField, notFound } from '../../../errors.ts';
import * as schemas from './schemas.ts';

/** Largest contacts file, bytes (spec document 3: files at most 4 MB). */
export const MAX_CONTACT_FILE_BYTES = 4 * 1024 * 1024;
const FILE_TYPES = ['text/csv', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'];

type IdParams = { id: string };

export async function contactRoutes(app: FastifyInstance, options: { campaigns: Campaigns }) {
  const { service, uploads } = options.campaigns;
  // The upload's body is the file itself, kept as bytes (this plugin's context only).
  app.addContentTypeParser(
    FILE_TYPES,
    { parseAs: 'buffer', bodyLimit: MAX_CONTACT_FILE_BYTES },
    (_request, body, done) => done(null, body),
  );

  app.post<{ Params: IdParams; Body: schemas.AddContactsBody }>(
    '/campaigns/:id/contacts',
    { schema: schemas.addContacts, config: { scope: 'campaigns:write' } },
    async (request, reply) => {
      const campaign = await service.row(principalOf(request), request.params.id);
      assertTakesContacts(campaign);
      const added = await addContacts(app.sql, campaign, request.body.contacts);
      const totalContacts = await countContacts(app.sql, campaign.id);
      return reply.code(201).send(ok({ ...added, totalContacts }, `${added.added} contacts added`));
    },
  );

  app.get<{ Params: IdParams; Querystring: schemas.ContactsQuery }>(
    '/campaigns/:id/contacts',
    { schema: schemas.listContacts, config: { scope: 'campaigns:read' } },
    async (request) => {
      const campaign = await service.row(principalOf(request), request.params.id);
      const page = request.query.page ?? 1;
      const limit = request.query.limit ?? 50;
      const { rows, total } = await listContacts(app.sql, campaign.id, {
        status: request.query.status,
        limit,
        offset: (page - 1) * limit,
      });
      return ok({
        contacts: rows.map((r) => ({
          id: r.id,
          phone: r.phone,
          name: r.name,
          variables: r.variables,
          status: r.status,
          attempts: r.attempts,
          nextAttemptAt: r.next_attempt_at?.toISOString() ?? null,
          lastOutcome: r.last_outcome,
          failureReason: r.failure_reason,
          callId: r.call_id,
          roomName: r.room_name,
          callStatus: r.call_status,
          callDuration: r.call_duration,
          extractedData: r.extracted_data,
          createdAt: r.created_at.toISOString(),
          updatedAt: r.updated_at.toISOString(),
        })),
        total,
        totalPages: Math.ceil(total / limit),
        currentPage: page,
      });
    },
  );

  app.get<{ Params: IdParams }>(
    '/campaigns/:id/contacts/export',
    { schema: schemas.exportContacts, config: { scope: 'campaigns:read' } },
    async (request, reply) => {
      const campaign = await service.row(principalOf(request), request.params.id);
      const fields = (campaign.data_extraction_schema as { fields?: [] } | null)?.fields ?? [];
      const body = new PassThrough();
      void writeContactsCsv(body, app.sql, campaign.id, fields).catch((error: unknown) => {
        request.log.error({ err: error }, 'contacts export failed');
        body.destroy(error instanceof Error ? error : new Error(String(error)));
      });
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="campaign-${campaign.id}-contacts.csv"`)
        .send(body);
    },
  );

  app.post<{ Params: IdParams; Querystring: schemas.UploadQuery; Body: Buffer }>(
    '/campaigns/:id/contacts/upload',
    {
      schema: schemas.uploadContacts,
      config: { scope: 'campaigns:write' },
      bodyLimit: MAX_CONTACT_FILE_BYTES,
    },
    async (request, reply) => {
      const campaign = await service.row(principalOf(request), request.params.id);
      const format = formatOf(request.headers['content-type']);
      if (!Buffer.isBuffer(request.body) || request.body.length === 0)
        throw badField('body', 'must be the file (not empty)');
      const id = newId();
      const query = request.query;
      await app.sql.begin(async (tx) => {
        await lockCampaign(tx, campaign.id);
        const fresh = await findCampaign(tx, campaign.id);
        if (!fresh) throw notFound('Campaign');
        assertTakesContacts(fresh);
        if (fresh.busy_upload)
          throw new ApiError('conflict', 'The campaign is busy with another contact upload: wait for it to finish');
        await insertUpload(tx, {
          id,
          campaignId: campaign.id,
          organisationId: campaign.organisation_id,
          fileName: query.fileName ?? `contacts.${format}`,
          format,
          content: request.body,
          mapping: {
            phoneColumn: query.phoneColumn ?? null,
            nameColumn: query.nameColumn ?? null,
            variableColumns:
              query.variableColumns === undefined
                ? null
                : query.variableColumns
                    .split(',')
                    .map((c) => c.trim())
                    .filter(Boolean),
          },
        });
      });
      uploads.nudge();
      const upload = (await findUpload(app.sql, campaign.id, id))!;
      return reply.code(202).send(ok(uploadRecord(upload), 'Upload queued'));
    },
  );

  app.get<{ Params: { id: string; uploadId: string } }>(
    '/campaigns/:id/uploads/:uploadId',
    { schema: schemas.getUpload, config: { scope: 'campaigns:read' } },
    async (request) => {
      const campaign = await service.row(principalOf(request), request.params.id);
      const upload = await findUpload(app.sql, campaign.id, request.params.uploadId);
      if (!upload) throw notFound('Upload');
      return ok(uploadRecord(upload));
    },
  );
}

function uploadRecord(row: UploadRow) {
  return {
    id: row.id,
    campaignId: row.campaign_id,
    fileName: row.file_name,
    format: row.format,
    status: row.status,
    result: row.result,
    error: row.error,
    createdAt: row.created_at.toISOString(),
    finishedAt: row.finished_at?.toISOString() ?? null,
  };
}
