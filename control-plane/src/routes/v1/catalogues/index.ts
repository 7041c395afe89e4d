/** /catalogues (spec document 2, "Catalogues"): create, list, upload a product file, status, search. */
import multipart from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';
import { ok } from '../../../http/envelope.ts';
import { bodylessValidator } from '../../../http/bodyless-validator.ts';
import { multipartLimits, readMultipartForm, type FormLimits } from '../../../http/multipart-form.ts';
import { principalOf } from '../../../plugins/app/auth.ts';
import { CatalogueService } from '../../../knowledge/catalogue-service.ts';
import { MAX_UPLOAD_FILE_BYTES } from '../../../knowledge/limits.ts';
import * as schemas from './schemas.ts';

const FORM: FormLimits = {
  fileFields: ['file'],
  textFields: [],
  maxFiles: 1,
  maxFileBytes: MAX_UPLOAD_FILE_BYTES,
  maxTextBytes: 1024,
};
/** One product file and the form's framing. */
const UPLOAD_REQUEST_BYTES = MAX_UPLOAD_FILE_BYTES * 2 + 64 * 1024;

export default async function catalogueRoutes(app: FastifyInstance) {
  await app.register(multipart, { limits: multipartLimits(FORM) });
  const catalogues = new CatalogueService(app.sql);

  app.get('/catalogues', { schema: schemas.list, config: { scope: 'knowledge:read' } }, async (request) =>
    ok(await catalogues.list(principalOf(request).organisationId)),
  );

  app.post<{ Body: schemas.CreateBody }>(
    '/catalogues',
    { schema: schemas.create, config: { scope: 'knowledge:write' } },
    async (request, reply) =>
      reply.code(201).send(ok(await catalogues.create(principalOf(request).organisationId, request.body))),
  );

  app.post<{ Params: schemas.IdParams }>(
    '/catalogues/:id/upload',
    {
      schema: schemas.upload,
      config: { scope: 'knowledge:write' },
      bodyLimit: UPLOAD_REQUEST_BYTES,
      validatorCompiler: bodylessValidator,
    },
    async (request) => {
      const organisationId = principalOf(request).organisationId;
      const readFile = async () => (await readMultipartForm(request, FORM)).files[0];
      return ok(await catalogues.upload(organisationId, request.params.id, readFile));
    },
  );

  app.get<{ Params: schemas.IdParams }>(
    '/catalogues/:id/status',
    { schema: schemas.status, config: { scope: 'knowledge:read' } },
    async (request) => ok(await catalogues.status(principalOf(request).organisationId, request.params.id)),
  );

  app.post<{ Params: schemas.IdParams; Body: schemas.SearchBody }>(
    '/catalogues/:id/search',
    { schema: schemas.search, config: { scope: 'knowledge:read' } },
    async (request) =>
      ok({
        results: await catalogues.search(
          principalOf(request).organisationId,
          request.params.id,
          request.body.query,
          request.body.limit,
        ),
      }),
  );
}
