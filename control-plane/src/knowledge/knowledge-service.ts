/**
 * Knowledge documents (spec document 2, "Knowledge bases"): created from text and/or files — stored whole with
 * their processing job in one transaction, or not at all — then processed in the background (knowledge-job.ts);
 * listed, read and deleted within the caller's organisation.
 */
import path from 'node:path';
import type { Sql } from '../db/database.ts';
import { newId } from '../db/ids.ts';
import { ApiError, badField, notFound } from '../errors.ts';
import { searchConfiguration } from './languages.ts';
import { KNOWLEDGE_FILE_KINDS, MAX_DESCRIPTION_CHARS, MAX_NAME_CHARS, type KnowledgeFileKind } from './limits.ts';
import {
  deleteDocument,
  findDocument,
  insertDocument,
  listDocuments,
  type DocumentRow,
  type SourceInput,
} from './knowledge-repository.ts';

export interface UploadedFile {
  fileName: string;
  content: Uint8Array;
}

export interface NewDocument {
  name: string | undefined;
  description: string | undefined;
  text: string | undefined;
  language: string | undefined;
  files: UploadedFile[];
}

/** A knowledge document as the API shows it (spec document 1, "Knowledge document"). */
export interface DocumentView {
  id: string;
  name: string;
  description: string | null;
  status: DocumentRow['status'];
  error: string | null;
  source_type: DocumentRow['source_type'];
  file_count: number;
  chunk_count: number | null;
  language: string;
  created_at: string;
  updated_at: string;
}

export function documentView(row: DocumentRow): DocumentView {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    status: row.status,
    error: row.error,
    source_type: row.source_type,
    file_count: row.file_count,
    chunk_count: row.status === 'ready' ? row.chunk_count : null,
    language: row.language,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** The file's kind from its extension; a 400 naming the file for any other. */
export function knowledgeFileKind(fileName: string, field = 'files'): KnowledgeFileKind {
  const extension = path.extname(fileName).slice(1).toLowerCase();
  if ((KNOWLEDGE_FILE_KINDS as readonly string[]).includes(extension)) return extension as KnowledgeFileKind;
  throw badField(field, `${fileName}: must be one of .${KNOWLEDGE_FILE_KINDS.join(', .')}`);
}

export class KnowledgeService {
  readonly #sql: Sql;
  readonly #queued: () => void;

  /** @param queued told after a document was stored, so the processing job looks now */
  constructor(sql: Sql, queued: () => void = () => {}) {
    this.#sql = sql;
    this.#queued = queued;
  }

  async create(organisationId: string, input: NewDocument): Promise<DocumentView> {
    const name = input.name?.trim();
    if (!name) throw badField('name', 'is required');
    if (name.length > MAX_NAME_CHARS) throw badField('name', `must be at most ${MAX_NAME_CHARS} characters`);
    const description = input.description?.trim() || null;
    if (description && description.length > MAX_DESCRIPTION_CHARS) {
      throw badField('description', `must be at most ${MAX_DESCRIPTION_CHARS} characters`);
    }
    const language = searchConfiguration(input.language);
    const text = input.text?.trim() ? input.text : undefined;
    const sources: SourceInput[] = [];
    if (text) sources.push({ fileName: 'text', kind: 'text', content: new TextEncoder().encode(text) });
    for (const file of input.files) {
      const kind = knowledgeFileKind(file.fileName);
      if (file.content.length === 0) throw badField('files', `${file.fileName} is empty`);
      sources.push({ fileName: file.fileName, kind, content: file.content });
    }
    if (sources.length === 0) throw badField('text', 'send text, files or both');
    const sourceType = !text ? 'file' : input.files.length ? 'mixed' : 'text';
    const row = await insertDocument(
      this.#sql,
      { id: newId(), organisation_id: organisationId, name, description, source_type: sourceType, language },
      sources,
    );
    this.#queued();
    return documentView(row);
  }

  async list(organisationId: string): Promise<DocumentView[]> {
    return (await listDocuments(this.#sql, organisationId)).map(documentView);
  }

  async get(organisationId: string, id: string): Promise<DocumentView> {
    const row = await findDocument(this.#sql, organisationId, id);
    if (!row) throw notFound('Knowledge base');
    return documentView(row);
  }

  /** Permanent: chunks go with it, and agents that list it simply no longer find anything in it. */
  async delete(organisationId: string, id: string): Promise<{ deleted: true; id: string }> {
    if (!(await deleteDocument(this.#sql, organisationId, id))) throw notFound('Knowledge base');
    return { deleted: true, id };
  }
}

/** The 413 of an upload over a limit, naming the file (spec document 3 gives 500; a caller can act on this). */
export function tooLarge(field: string, message: string): ApiError {
  return new ApiError('payload_too_large', message, { fields: [{ field, message }] });
}
