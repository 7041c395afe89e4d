/**
 * /knowledge-bases (spec document 2, "Knowledge bases"): add from text and/or files (multipart), list, read,
 * delete, and search. Processing happens in the background (knowledge/knowledge-job.ts); `onQueued` wakes it.
 */
import multipart from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';
import { ok } from '../../../http/envelope.ts';
import { multipartLimits, readMultipartForm, type FormLimits } from '../../../http/multipart-form.ts';
import { bodylessValidator } from '../../../http/bodyless-validator.ts';
import { principalOf } from '../../../plugins/app/auth.ts';
import { KnowledgeService } from '../../../knowledge/knowledge-service.ts';
import { searchKnowledge } from '../../../knowledge/knowledge-search.ts';
import type { Embedder } from '../../../knowledge/embeddings/embedder.ts';
import {
  MAX_KNOWLEDGE_FILES,
  MAX_KNOWLEDGE_REQUEST_BYTES,
  MAX_KNOWLEDGE_TEXT_BYTES,
  MAX_UPLOAD_FILE_BYTES,
} from '../../../knowledge/limits.ts';
import * as schemas from './schemas.ts';

export interface KnowledgeRoutesOptions {
  /** Told when a document was stored, so the processing job looks at once. */
  onQueued?: () => void;
  /** Set when search is hybrid (knowledge/search-mode.ts). */
  embedder?: Embedder;
}

const FORM: FormLimits = {
  fileFields: ['files', 'file'],
  textFields: ['name', 'description', 'text', 'language'],
  maxFiles: MAX_KNOWLEDGE_FILES,
  maxFileBytes: MAX_UPLOAD_FILE_BYTES,
  maxTextBytes: MAX_KNOWLEDGE_TEXT_BYTES,
};

export default async function knowledgeBaseRoutes(app: FastifyInstance, options: KnowledgeRoutesOptions = {}) {
  await app.register(multipart, { limits: multipartLimits(FORM) });
  const knowledge = new KnowledgeService(app.sql, options.onQueued);

  app.post(
    '/knowledge-bases',
    {
      schema: schemas.create,
      config: { scope: 'knowledge:write' },
      bodyLimit: MAX_KNOWLEDGE_REQUEST_BYTES,
      validatorCompiler: bodylessValidator,
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const form = await readMultipartForm(request, FORM);
      const document = await knowledge.create(principal.organisationId, {
        name: form.fields.name,
        description: form.fields.description,
        text: form.fields.text,
        language: form.fields.language,
        files: form.files,
      });
      return reply.code(201).send(ok(document));
    },
  );

  app.get('/knowledge-bases', { schema: schemas.list, config: { scope: 'knowledge:read' } }, async (request) =>
    ok(await knowledge.list(principalOf(request).organisationId)),
  );

  app.post<{ Body: schemas.SearchBody }>(
    '/knowledge-bases/search',
    { schema: schemas.search, config: { scope: 'knowledge:read' } },
    async (request) =>
      ok({
        results: await searchKnowledge(
          app.sql,
          {
            organisationId: principalOf(request).organisationId,
            documentIds: request.body.knowledge_base_ids,
            query: request.body.query,
            limit: request.body.limit,
          },
          options.embedder,
        ),
      }),
  );

  app.get<{ Params: schemas.IdParams }>(
    '/knowledge-bases/:id',
    { schema: schemas.getOne, config: { scope: 'knowledge:read' } },
    async (request) => ok(await knowledge.get(principalOf(request).organisationId, request.params.id)),
  );

  app.delete<{ Params: schemas.IdParams }>(
    '/knowledge-bases/:id',
    { schema: schemas.remove, config: { scope: 'knowledge:write' } },
    async (request) => ok(await knowledge.delete(principalOf(request).organisationId, request.params.id)),
  );
}
