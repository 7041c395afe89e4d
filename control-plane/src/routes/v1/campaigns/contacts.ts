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
import { formatOf } from '../../../campaigns/contact-file.ts';
import { badField } from '../../../errors.ts';
import * as schemas from './schemas.ts';

/** Largest contacts file, bytes (spec document 3: files at most 4 MB). */
export const MAX_CONTACT_FILE_BYTES = 4 * 1024 * 1024;
const FILE_TYPES = ['text/csv', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'];

type IdParams = { id: string };

export async function contactRoutes(app: FastifyInstance, options: { campaigns: Campaigns }) {
  const { service, contacts, uploads } = options.campaigns;
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
      const added = await contacts.add(principalOf(request), request.params.id, request.body.contacts);
      return reply.code(201).send(ok(added, `${added.added} contacts added`));
    },
  );

  app.get<{ Params: IdParams; Querystring: schemas.ContactsQuery }>(
    '/campaigns/:id/contacts',
    { schema: schemas.listContacts, config: { scope: 'campaigns:read' } },
    async (request) => ok(await contacts.list(principalOf(request), request.params.id, request.query)),
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
      // The campaign is checked first: another organisation's is a 403 whatever the file.
      await service.row(principalOf(request), request.params.id);
      const format = formatOf(request.headers['content-type']);
      if (!Buffer.isBuffer(request.body) || request.body.length === 0)
        throw badField('body', 'must be the file (not empty)');
      const { fileName, phoneColumn, nameColumn, variableColumns } = request.query;
      const upload = await contacts.queueUpload(principalOf(request), request.params.id, {
        fileName: fileName ?? `contacts.${format}`,
        format,
        content: request.body,
        mapping: {
          phoneColumn: phoneColumn ?? null,
          nameColumn: nameColumn ?? null,
          variableColumns:
            variableColumns === undefined
              ? null
              : variableColumns
                  .split(',')
                  .map((c) => c.trim())
                  .filter(Boolean),
        },
      });
      uploads.nudge();
      return reply.code(202).send(ok(upload, 'Upload queued'));
    },
  );

  app.get<{ Params: { id: string; uploadId: string } }>(
    '/campaigns/:id/uploads/:uploadId',
    { schema: schemas.getUpload, config: { scope: 'campaigns:read' } },
    async (request) => ok(await contacts.upload(principalOf(request), request.params.id, request.params.uploadId)),
  );
}
