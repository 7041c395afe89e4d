/** `parley campaigns …`: outbound campaigns — create, load contacts from a file, start, pause, follow, export. */
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { CliError } from '../../cli-error.ts';
import { numberFlag, positional, requiredFlag, type ClientContext, type Resource } from '../client-command.ts';
import { download } from '../download.ts';
import { readJsonFile } from '../json-file.ts';
import { notice, printFields, printJson, printTable } from '../output.ts';
import { progressBar } from '../progress.ts';

interface Campaign {
  id: string;
  name: string;
  status: string;
  pausedReason: string | null;
  voiceAgentId: string;
  dialingNumber: string | null;
  callStartTime: string;
  callEndTime: string;
  timezone: string;
  startDate: string | null;
  endDate: string | null;
  totalContacts: number;
  completedCalls: number;
  failedCalls: number;
  inProgressCalls: number;
  createdAt: string;
}

interface ContactUpload {
  id: string;
  status: 'PENDING' | 'PROCESSING' | 'DONE' | 'FAILED';
  result: { received?: number; added?: number; duplicates?: number; invalid?: number } | null;
  error: string | null;
}

interface CampaignStats {
  status: string;
  pausedReason: string | null;
  contacts: { total: number; pending: number; calling: number; completed: number; failed: number };
  callsPlaced: number;
  callsAnswered: number;
  answerRate: number;
  answeredMinutes: number;
  outcomes: Record<string, number>;
  progress: number;
}

const CONTACT_FILE_TYPES: Record<string, string> = {
  '.csv': 'text/csv',
  '.xlsx': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};
const MAX_CONTACT_FILE_BYTES = 4 * 1024 * 1024;
const UPLOAD_POLL_MS = 500;
const UPLOAD_WAIT_MAX_MS = 5 * 60_000;

/** start, pause and complete: one POST each, answering the campaign. */
function transition(action: 'start' | 'pause' | 'complete', summary: string) {
  return {
    usage: 'ID',
    summary,
    async run(context: ClientContext, positionals: string[]) {
      const id = positional(positionals, 0, 'campaign ID');
      const campaign = await (await context.api()).request<Campaign>('POST', `/campaigns/${id}/${action}`);
      if (context.json) {
        printJson(campaign);
        return 0;
      }
      notice(`campaign "${campaign.name}": ${campaign.status}`);
      return 0;
    },
  };
}

export const campaigns: Resource = {
  name: 'campaigns',
  summary: 'outbound campaigns: create, add contacts from CSV or XLSX, start, pause, follow progress',
  verbs: {
    create: {
      usage: '--file CAMPAIGN.json',
      summary: 'create a campaign (DRAFT) from a JSON file of its fields (- reads standard input)',
      options: { file: { type: 'string' } },
      async run(context, _positionals, flags) {
        const body = await readJsonFile(requiredFlag(flags, 'file'));
        const campaign = await (await context.api()).request<Campaign>('POST', '/campaigns', { json: body });
        if (context.json) {
          printJson(campaign);
          return 0;
        }
        process.stdout.write(`${campaign.id}\n`);
        notice(`created campaign "${campaign.name}" (${campaign.status})`);
        return 0;
      },
    },
    list: {
      usage: '[--page N] [--limit N]',
      summary: 'the campaigns, newest first',
      options: { page: { type: 'string' }, limit: { type: 'string' } },
      async run(context, _positionals, flags) {
        const organisationId = await context.organisationId();
        const page = await (await context.api()).request<{
          campaigns: Campaign[];
          total: number;
          totalPages: number;
          currentPage: number;
        }>('GET', `/campaigns/organisations/${organisationId}`, {
          query: { page: numberFlag(flags, 'page', 1, 1_000_000), limit: numberFlag(flags, 'limit', 1, 100) },
        });
        if (context.json) {
          printJson(page);
          return 0;
        }
        printTable(page.campaigns, [
          { header: 'ID', value: (c) => c.id },
          { header: 'NAME', value: (c) => c.name },
          { header: 'STATUS', value: (c) => c.status },
          { header: 'CONTACTS', value: (c) => c.totalContacts },
          { header: 'DONE', value: (c) => c.completedCalls },
          { header: 'FAILED', value: (c) => c.failedCalls },
          { header: 'CALLING', value: (c) => c.inProgressCalls },
          { header: 'WINDOW', value: (c) => `${c.callStartTime}-${c.callEndTime} ${c.timezone}` },
        ]);
        if (page.totalPages > 1)
          notice(`page ${page.currentPage} of ${page.totalPages} (${page.total} campaigns): --page N`);
        return 0;
      },
    },
    get: {
      usage: 'ID',
      summary: 'one campaign',
      async run(context, positionals) {
        const campaign = await (await context.api()).request<Campaign>(
          'GET',
          `/campaigns/${positional(positionals, 0, 'campaign ID')}`,
        );
        if (context.json) {
          printJson(campaign);
          return 0;
        }
        printFields([
          ['id', campaign.id],
          ['name', campaign.name],
          ['status', campaign.pausedReason ? `${campaign.status} (${campaign.pausedReason})` : campaign.status],
          ['agent', campaign.voiceAgentId],
          ['dialling from', campaign.dialingNumber],
          ['window', `${campaign.callStartTime}-${campaign.callEndTime} ${campaign.timezone}`],
          ['dates', `${campaign.startDate ?? 'now'} to ${campaign.endDate ?? 'open'}`],
          ['contacts', campaign.totalContacts],
          ['completed', campaign.completedCalls],
          ['failed', campaign.failedCalls],
          ['calling', campaign.inProgressCalls],
        ]);
        return 0;
      },
    },
    contacts: {
      usage: 'ID FILE.csv|FILE.xlsx [--phone-column C] [--name-column C] [--variable-columns a,b]',
      summary: 'add contacts from a file: uploaded, then read by the server; waits for its count',
      options: {
        'phone-column': { type: 'string' },
        'name-column': { type: 'string' },
        'variable-columns': { type: 'string' },
      },
      async run(context, positionals, flags) {
        const id = positional(positionals, 0, 'campaign ID');
        const file = positional(positionals, 1, 'contacts file (.csv or .xlsx)');
        const contentType = CONTACT_FILE_TYPES[path.extname(file).toLowerCase()];
        if (!contentType) throw new CliError(`${file}: contacts come from a .csv or .xlsx file`);
        const size = (
          await stat(file).catch((error: Error) => {
            throw new CliError(`cannot read ${file}: ${error.message}`);
          })
        ).size;
        if (size > MAX_CONTACT_FILE_BYTES) throw new CliError(`${file} is larger than 4 MB`);
        const api = await context.api();
        const bar = progressBar(`uploading ${path.basename(file)}`, context.progress);
        let upload = await api.request<ContactUpload>('POST', `/campaigns/${id}/contacts/upload`, {
          query: {
            fileName: path.basename(file),
            phoneColumn: flags['phone-column'] as string | undefined,
            nameColumn: flags['name-column'] as string | undefined,
            variableColumns: flags['variable-columns'] as string | undefined,
          },
          raw: { bytes: await readFile(file), contentType },
          onProgress: bar.update,
        });
        bar.done();
        const deadline = Date.now() + UPLOAD_WAIT_MAX_MS;
        while ((upload.status === 'PENDING' || upload.status === 'PROCESSING') && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, UPLOAD_POLL_MS));
          upload = await api.request<ContactUpload>('GET', `/campaigns/${id}/uploads/${upload.id}`);
        }
        if (context.json) {
          printJson(upload);
          return upload.status === 'DONE' ? 0 : 1;
        }
        if (upload.status === 'FAILED') throw new CliError(`the contacts file was refused: ${upload.error}`);
        if (upload.status !== 'DONE')
          throw new CliError(`the upload ${upload.id} is still ${upload.status}: check later`);
        const r = upload.result ?? {};
        notice(
          `${r.added ?? 0} contacts added of ${r.received ?? 0} rows (${r.duplicates ?? 0} duplicates, ${r.invalid ?? 0} invalid)`,
        );
        return 0;
      },
    },
    start: transition('start', 'start dialling (or schedule it, before its start date)'),
    pause: transition('pause', 'stop dialling new contacts; calls in progress finish'),
    complete: transition('complete', 'end the campaign; its remaining contacts are not called'),
    stats: {
      usage: 'ID',
      summary: 'progress and outcomes',
      async run(context, positionals) {
        const stats = await (await context.api()).request<CampaignStats>(
          'GET',
          `/campaigns/${positional(positionals, 0, 'campaign ID')}/stats`,
        );
        if (context.json) {
          printJson(stats);
          return 0;
        }
        const { contacts } = stats;
        printFields([
          ['status', stats.pausedReason ? `${stats.status} (${stats.pausedReason})` : stats.status],
          ['progress', `${Math.round(stats.progress * 100)}%`],
          [
            'contacts',
            `${contacts.total} total, ${contacts.pending} pending, ${contacts.calling} calling, ${contacts.completed} completed, ${contacts.failed} failed`,
          ],
          [
            'calls',
            `${stats.callsPlaced} placed, ${stats.callsAnswered} answered (${Math.round(stats.answerRate * 100)}%), ${stats.answeredMinutes} minutes`,
          ],
          [
            'outcomes',
            Object.entries(stats.outcomes)
              .map(([o, n]) => `${o} ${n}`)
              .join(', ') || '-',
          ],
        ]);
        return 0;
      },
    },
    export: {
      usage: 'ID [--out FILE]',
      summary: 'the contacts with their call status and extracted data as CSV (default contacts-ID.csv)',
      options: { out: { type: 'string' } },
      async run(context, positionals, flags) {
        const id = positional(positionals, 0, 'campaign ID');
        const out = path.resolve((flags.out as string | undefined) ?? `contacts-${id}.csv`);
        return download(context, `/campaigns/${id}/contacts/export`, out, {});
      },
    },
  },
};
