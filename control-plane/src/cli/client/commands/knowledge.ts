/** `parley knowledge …`: knowledge bases — upload documents, follow their processing, search, delete. */
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { CliError } from '../../cli-error.ts';
import { positional, requiredFlag, type Resource } from '../client-command.ts';
import { notice, printFields, printJson, printTable } from '../output.ts';
import { progressBar } from '../progress.ts';

interface KnowledgeBase {
  id: string;
  name: string;
  description: string | null;
  status: 'processing' | 'ready' | 'error';
  error: string | null;
  file_count: number;
  chunk_count: number;
  language: string;
  created_at: string;
}

interface SearchHit {
  document_name: string;
  heading: string;
  text: string;
  score: number;
}

/** What the upload route reads (docs/architecture.md §14): the types and sizes it refuses are refused here first. */
const UPLOAD_TYPES: Record<string, string> = {
  '.pdf': 'application/pdf',
  '.docx': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  '.txt': 'text/plain',
  '.md': 'text/markdown',
  '.csv': 'text/csv',
  '.json': 'application/json',
};
const MAX_FILES = 5;
const MAX_FILE_BYTES = 4 * 1024 * 1024;
/** How often --wait asks whether processing is done, and for how long. */
const WAIT_POLL_MS = 500;
const WAIT_MAX_MS = 5 * 60_000;

export const knowledge: Resource = {
  name: 'knowledge',
  summary: 'knowledge bases: upload documents (.pdf .docx .txt .md .csv .json), search, delete',
  verbs: {
    upload: {
      usage: '--name NAME FILE… [--description TEXT] [--language L] [--wait]',
      summary: 'a new knowledge base from up to 5 files of 4 MB; --wait until it is searchable',
      options: {
        name: { type: 'string' },
        description: { type: 'string' },
        language: { type: 'string' },
        text: { type: 'string' },
        wait: { type: 'boolean' },
      },
      async run(context, files, flags) {
        if (files.length === 0 && !flags.text) throw new CliError('name at least one file to upload (or --text)');
        if (files.length > MAX_FILES)
          throw new CliError(`at most ${MAX_FILES} files per knowledge base, not ${files.length}`);
        const form = new FormData();
        form.set('name', requiredFlag(flags, 'name'));
        for (const field of ['description', 'language', 'text'] as const)
          if (typeof flags[field] === 'string') form.set(field, flags[field] as string);
        for (const file of files) form.append('files', await fileBlob(file), path.basename(file));
        const api = await context.api();
        const bar = progressBar('uploading', context.progress);
        let base = await api.request<KnowledgeBase>('POST', '/knowledge-bases', { form, onProgress: bar.update });
        bar.done();
        if (flags.wait) {
          const deadline = Date.now() + WAIT_MAX_MS;
          while (base.status === 'processing' && Date.now() < deadline) {
            await new Promise((resolve) => setTimeout(resolve, WAIT_POLL_MS));
            base = await api.request<KnowledgeBase>('GET', `/knowledge-bases/${base.id}`);
          }
        }
        if (context.json) {
          printJson(base);
          return 0;
        }
        process.stdout.write(`${base.id}\n`);
        notice(`knowledge base "${base.name}": ${describe(base)}`);
        return base.status === 'error' ? 1 : 0;
      },
    },
    list: {
      usage: '',
      summary: "the organisation's knowledge bases",
      async run(context) {
        const bases = await (await context.api()).request<KnowledgeBase[]>('GET', '/knowledge-bases');
        if (context.json) {
          printJson(bases);
          return 0;
        }
        printTable(bases, [
          { header: 'ID', value: (b) => b.id },
          { header: 'NAME', value: (b) => b.name },
          { header: 'STATUS', value: (b) => b.status },
          { header: 'FILES', value: (b) => b.file_count },
          { header: 'CHUNKS', value: (b) => b.chunk_count },
          { header: 'CREATED', value: (b) => b.created_at },
        ]);
        return 0;
      },
    },
    get: {
      usage: 'ID',
      summary: 'one knowledge base and its processing status',
      async run(context, positionals) {
        const base = await (await context.api()).request<KnowledgeBase>(
          'GET',
          `/knowledge-bases/${positional(positionals, 0, 'knowledge base ID')}`,
        );
        if (context.json) {
          printJson(base);
          return 0;
        }
        printFields([
          ['id', base.id],
          ['name', base.name],
          ['description', base.description],
          ['status', describe(base)],
          ['language', base.language],
          ['files', base.file_count],
          ['created', base.created_at],
        ]);
        return 0;
      },
    },
    search: {
      usage: 'ID QUESTION…',
      summary: 'what an agent would find for a question',
      async run(context, positionals) {
        const id = positional(positionals, 0, 'knowledge base ID');
        const query = positionals.slice(1).join(' ');
        if (!query) throw new CliError('missing the question to search for');
        const found = await (await context.api()).request<{ results: SearchHit[] }>('POST', '/knowledge-bases/search', {
          json: { knowledge_base_ids: [id], query },
        });
        if (context.json) {
          printJson(found);
          return 0;
        }
        printTable(found.results, [
          { header: 'SCORE', value: (h) => h.score.toFixed(3) },
          { header: 'WHERE', value: (h) => h.heading || h.document_name },
          { header: 'TEXT', value: (h) => h.text },
        ]);
        return 0;
      },
    },
    delete: {
      usage: 'ID',
      summary: 'delete a knowledge base for good (agents using it lose it)',
      async run(context, positionals) {
        const id = positional(positionals, 0, 'knowledge base ID');
        const deleted = await (await context.api()).request<unknown>('DELETE', `/knowledge-bases/${id}`);
        if (context.json) {
          printJson(deleted);
          return 0;
        }
        notice(`deleted knowledge base ${id}`);
        return 0;
      },
    },
  },
};

function describe(base: KnowledgeBase): string {
  if (base.status === 'ready') return `ready, ${base.chunk_count} chunks from ${base.file_count} files`;
  if (base.status === 'error') return `error: ${base.error ?? 'unknown'}`;
  return 'processing (parley knowledge get ID shows when it is ready)';
}

async function fileBlob(file: string): Promise<Blob> {
  const type = UPLOAD_TYPES[path.extname(file).toLowerCase()];
  if (!type) throw new CliError(`${file}: only ${Object.keys(UPLOAD_TYPES).join(' ')} files can be uploaded`);
  const size = await stat(file).then(
    (s) => s.size,
    (error: Error) => {
      throw new CliError(`cannot read ${file}: ${error.message}`);
    },
  );
  if (size > MAX_FILE_BYTES) throw new CliError(`${file} is larger than 4 MB`);
  return new Blob([await readFile(file)], { type });
}
