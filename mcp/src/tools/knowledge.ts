/**
 * The knowledge tools (spec document 2): the organisation's knowledge documents — list, read with ingestion status,
 * add from text and/or one base64 file (up to 4 MB, sent as the REST route's multipart form), and delete
 * (confirm-gated: agents searching the document lose it at once).
 */
import { z } from 'zod';
import { previewResult } from './confirm.ts';
import { DEFAULT_LIST_LIMIT, listResult, valueResult } from './results.ts';
import { confirmArgument, defineTool, listArguments, pageArgument, type Tool } from './tool.ts';
import { RestFailure, type ToolContext } from './tool-context.ts';

const SERVICE = 'Knowledge';
/** Spec document 2: a file of a knowledge document is at most 4 MB. */
const MAX_FILE_BYTES = 4 * 1024 * 1024;
/** The file types the REST route reads, by extension, with the type each is sent as. */
const FILE_TYPES: Record<string, string> = {
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  txt: 'text/plain',
  md: 'text/markdown',
  csv: 'text/csv',
  json: 'application/json',
};

interface KnowledgeDocument {
  id: string;
  name: string;
  status: string;
  [field: string]: unknown;
}

const documentId = { document_id: z.string().min(1).max(64).describe('The knowledge document id') };

function getDocument(context: ToolContext, id: string): Promise<KnowledgeDocument> {
  return context.call<KnowledgeDocument>(SERVICE, {
    method: 'GET',
    path: `/knowledge-bases/${encodeURIComponent(id)}`,
  });
}

const knowledgeList = defineTool({
  name: 'knowledge_list',
  title: 'List knowledge documents',
  description:
    "The organisation's knowledge documents, newest first: name, status (processing, ready or error), source, files and chunks.",
  toolClass: 'read',
  scopes: ['knowledge:read'],
  input: { ...pageArgument, ...listArguments },
  async run(args, context) {
    const documents = await context.call<KnowledgeDocument[]>(SERVICE, { method: 'GET', path: '/knowledge-bases' });
    const limit = args.limit ?? DEFAULT_LIST_LIMIT;
    const page = args.page ?? 1;
    return listResult(
      { items: documents.slice((page - 1) * limit, page * limit), total: documents.length, page, limit },
      args.fields,
    );
  },
});

const knowledgeGet = defineTool({
  name: 'knowledge_get',
  title: 'Read a knowledge document',
  description:
    'One knowledge document with its ingestion status: processing until it is searchable, then ready (or error, saying why).',
  toolClass: 'read',
  scopes: ['knowledge:read'],
  input: { ...documentId },
  async run(args, context) {
    return valueResult(await getDocument(context, args.document_id));
  },
});

const knowledgeAdd = defineTool({
  name: 'knowledge_add',
  title: 'Add a knowledge document',
  description:
    'Add a document agents can search during conversations, from text and/or one file (base64, at most 4 MB: .pdf, ' +
    '.docx, .txt, .md, .csv, .json). It is processed in the background: poll knowledge_get until its status is ready, ' +
    "then list its id in an agent's custom variable knowledge_base_ids.",
  toolClass: 'write',
  scopes: ['knowledge:write'],
  input: {
    name: z.string().min(1).max(255).describe('What the document is called'),
    description: z.string().max(2000).optional().describe('What it is about'),
    text: z.string().min(1).max(1_000_000).optional().describe('The content as text'),
    file_name: z.string().min(1).max(255).optional().describe('The file name, with its extension, e.g. menu.pdf'),
    file_base64: z.string().min(1).max(6_000_000).optional().describe('The file, base64-encoded (with file_name)'),
  },
  async run(args, context) {
    if (!args.text && !args.file_base64)
      throw new RestFailure(SERVICE, 400, 'Send text, a file (file_name and file_base64), or both');
    const files = [];
    if (args.file_base64 !== undefined) {
      if (!args.file_name) throw new RestFailure(SERVICE, 400, 'file_name is required with file_base64');
      const extension = args.file_name.split('.').pop()?.toLowerCase() ?? '';
      const contentType = FILE_TYPES[extension];
      if (!contentType)
        throw new RestFailure(SERVICE, 400, `file_name must end in one of .${Object.keys(FILE_TYPES).join(', .')}`);
      const data = Buffer.from(args.file_base64, 'base64');
      if (data.length === 0) throw new RestFailure(SERVICE, 400, 'file_base64 is not base64 or is empty');
      if (data.length > MAX_FILE_BYTES) throw new RestFailure(SERVICE, 413, `${args.file_name} is over 4 MB`);
      files.push({ field: 'files', filename: args.file_name, contentType, data });
    }
    const fields: Record<string, string> = { name: args.name };
    if (args.description) fields.description = args.description;
    if (args.text) fields.text = args.text;
    return valueResult(
      await context.call(SERVICE, { method: 'POST', path: '/knowledge-bases', form: { fields, files } }),
    );
  },
});

const knowledgeDelete = defineTool({
  name: 'knowledge_delete',
  title: 'Delete a knowledge document',
  description: 'Delete a knowledge document and its chunks, for good; agents that list it find nothing in it any more.',
  toolClass: 'destructive',
  confirm: true,
  scopes: ['knowledge:write'],
  input: { ...documentId, ...confirmArgument },
  async run(args, context) {
    if (!args.confirm) {
      const document = await getDocument(context, args.document_id);
      return previewResult('knowledge_delete', {
        action: `Delete the knowledge document "${document.name}"`,
        target: document,
        effects: [
          'The document and every chunk of it are deleted permanently.',
          'Agents whose knowledge_base_ids list it no longer find its content.',
        ],
      });
    }
    return valueResult(
      await context.call(SERVICE, {
        method: 'DELETE',
        path: `/knowledge-bases/${encodeURIComponent(args.document_id)}`,
      }),
    );
  },
});

export const knowledgeTools: readonly Tool[] = [knowledgeList, knowledgeGet, knowledgeAdd, knowledgeDelete];
