/**
 * `parley calls …`: place calls, read their history, transcript and recording (/voice/session, /voice-sessions,
 * /call-history).
 */
import path from 'node:path';
import { CliError } from '../../cli-error.ts';
import {
  numberFlag,
  positional,
  requiredFlag,
  type ClientContext,
  type Flags,
  type Resource,
} from '../client-command.ts';
import { download } from '../download.ts';
import { notice, printFields, printTable } from '../output.ts';

interface PlacedCall {
  sessionId: string;
  roomName: string;
  callType: string;
  status: string;
  websocketUrl?: string;
  wsUrl?: string;
  token?: string;
}

interface CallRecord {
  id: string;
  roomName: string;
  agentId: string;
  agentName: string | null;
  participantName: string | null;
  phoneNumber: string | null;
  callType: string;
  callDirection: string;
  callStatus: string;
  callOutcome: string | null;
  /** ms (spec document 1). */
  callDuration: number | null;
  createdAt: string;
  endedAt: string | null;
  overview: string | null;
  recordingUrl: string | null;
}

interface HistoryPage {
  sessions: CallRecord[];
  pagination: { page: number; total: number; totalPages: number };
}

interface TranscriptLine {
  speaker: string;
  text: string;
  startMs: number;
  interrupted: boolean;
}

const HISTORY_FILTERS = {
  agent: { type: 'string' },
  outcome: { type: 'string' },
  direction: { type: 'string' },
  from: { type: 'string' },
  to: { type: 'string' },
  search: { type: 'string' },
} as const;

/** The history routes' filters from the flags both `list` and `export` take. */
function historyQuery(flags: Flags) {
  return {
    agentId: flags.agent as string | undefined,
    outcome: flags.outcome as string | undefined,
    callDirection: (flags.direction as string | undefined)?.toUpperCase(),
    startDate: flags.from as string | undefined,
    endDate: flags.to as string | undefined,
    search: flags.search as string | undefined,
  };
}

async function record(context: ClientContext, id: string): Promise<CallRecord> {
  return context.request<CallRecord>('GET', `/voice-sessions/${id}`);
}

export const calls: Resource = {
  name: 'calls',
  summary: 'place calls; read their history, transcripts and recordings',
  verbs: {
    place: {
      usage: '--agent ID (--to +E164 | --type websocket|web) [--name NAME] [--var key=value …]',
      summary: 'place a call: a phone call to --to, or a websocket or browser call (its URL printed)',
      options: {
        agent: { type: 'string' },
        to: { type: 'string' },
        type: { type: 'string' },
        name: { type: 'string' },
        var: { type: 'string', multiple: true },
      },
      async run(context, _positionals, flags) {
        const callType = (flags.type as string | undefined) ?? (flags.to ? 'sip' : undefined);
        if (!callType) throw new CliError('say whom to call with --to +E164, or --type websocket or web');
        const placed = await context.request<PlacedCall>('POST', '/voice/session', {
          json: {
            agentId: requiredFlag(flags, 'agent'),
            callType,
            participantName: (flags.name as string | undefined) ?? 'parley calls place',
            ...(flags.to ? { participantNumber: flags.to } : {}),
            ...(flags.var ? { customVariables: variables(flags.var as unknown as string[]) } : {}),
          },
        });
        return context.show(placed, () => {
          process.stdout.write(`${placed.sessionId}\n`);
          notice(`call ${placed.sessionId} ${placed.status} (${placed.callType})`);
          const url = placed.websocketUrl ?? placed.wsUrl;
          if (url) notice(`connect to ${url}`);
        });
      },
    },
    list: {
      usage:
        '[--agent ID] [--outcome O] [--direction inbound|outbound] [--from DATE] [--to DATE] [--search TEXT] [--page N] [--limit N]',
      summary: 'call history, newest first',
      options: { ...HISTORY_FILTERS, page: { type: 'string' }, limit: { type: 'string' } },
      async run(context, _positionals, flags) {
        const organisationId = await context.organisationId();
        const page = await context.request<HistoryPage>(
          'GET',
          `/call-history/sessions/organization/${organisationId}`,
          {
            query: {
              ...historyQuery(flags),
              page: numberFlag(flags, 'page', 1, 1_000_000),
              limit: numberFlag(flags, 'limit', 1, 100),
            },
          },
        );
        return context.show(page, () => {
          printTable(page.sessions, [
            { header: 'ID', value: (c) => c.id },
            { header: 'CREATED', value: (c) => c.createdAt },
            { header: 'AGENT', value: (c) => c.agentName ?? c.agentId },
            { header: 'TYPE', value: (c) => c.callType },
            { header: 'WHO', value: (c) => c.phoneNumber ?? c.participantName },
            { header: 'STATUS', value: (c) => c.callStatus },
            { header: 'OUTCOME', value: (c) => c.callOutcome },
            { header: 'SECONDS', value: (c) => seconds(c.callDuration) },
          ]);
          const { page: at, totalPages, total } = page.pagination;
          if (totalPages > 1) notice(`page ${at} of ${totalPages} (${total} calls): --page N`);
        });
      },
    },
    get: {
      usage: 'ID',
      summary: 'one call: who, when, how it ended, its overview',
      async run(context, positionals) {
        const call = await record(context, positional(positionals, 0, 'call ID'));
        return context.show(call, () => {
          printFields([
            ['id', call.id],
            ['call id', call.roomName],
            ['agent', call.agentName ?? call.agentId],
            ['type', `${call.callType} ${call.callDirection.toLowerCase()}`],
            ['who', call.phoneNumber ?? call.participantName],
            ['status', call.callStatus],
            ['outcome', call.callOutcome],
            ['seconds', seconds(call.callDuration)],
            ['created', call.createdAt],
            ['ended', call.endedAt],
            ['recording', call.recordingUrl ? 'yes (parley calls recording ID)' : 'no'],
            ['overview', call.overview],
          ]);
        });
      },
    },
    transcript: {
      usage: 'ID',
      summary: 'what was said, line by line',
      async run(context, positionals) {
        const call = await record(context, positional(positionals, 0, 'call ID'));
        const data = await context.request<{ transcripts: TranscriptLine[] }>(
          'GET',
          `/call-history/sessions/room/${encodeURIComponent(call.roomName)}/transcripts`,
        );
        return context.show(data, () => {
          if (data.transcripts.length === 0) notice('(nothing was said on this call)');
          for (const line of data.transcripts) {
            const who = line.speaker === 'assistant' ? 'agent ' : 'caller';
            const at = `${(line.startMs / 1000).toFixed(1).padStart(6)}s`;
            process.stdout.write(`${at} ${who}: ${line.text}${line.interrupted ? ' [interrupted]' : ''}\n`);
          }
        });
      },
    },
    end: {
      usage: 'ID',
      summary: 'hang up a call in progress',
      async run(context, positionals) {
        const call = await record(context, positional(positionals, 0, 'call ID'));
        const ended = await context.request<CallRecord>(
          'POST',
          `/voice-sessions/room/${encodeURIComponent(call.roomName)}/end`,
        );
        return context.show(ended, () => {
          notice(`call ${ended.id}: ${ended.callStatus}`);
        });
      },
    },
    recording: {
      usage: 'ID [--out FILE]',
      summary: "download the call's recording (Ogg Opus; default ID.ogg)",
      options: { out: { type: 'string' } },
      async run(context, positionals, flags) {
        const id = positional(positionals, 0, 'call ID');
        const out = path.resolve((flags.out as string | undefined) ?? `${id}.ogg`);
        return download(context, `/voice-sessions/${id}/recording`, out, {});
      },
    },
    export: {
      usage: '[--out FILE] [filters of list]',
      summary: 'the call history as an Excel workbook (default calls.xlsx)',
      options: { ...HISTORY_FILTERS, out: { type: 'string' } },
      async run(context, _positionals, flags) {
        const organisationId = await context.organisationId();
        const out = path.resolve((flags.out as string | undefined) ?? 'calls.xlsx');
        return download(
          context,
          `/call-history/sessions/organization/${organisationId}/export`,
          out,
          historyQuery(flags),
        );
      },
    },
  },
};

/** key=value pairs into an object; a pair without `=` is the user's mistake. */
function variables(pairs: string[]): Record<string, string> {
  return Object.fromEntries(
    pairs.map((pair) => {
      const at = pair.indexOf('=');
      if (at < 1) throw new CliError(`--var takes key=value, not "${pair}"`);
      return [pair.slice(0, at), pair.slice(at + 1)];
    }),
  );
}

/** A call's duration (ms) as seconds with one decimal, or nothing when it has none. */
function seconds(ms: number | null): string | null {
  return ms === null ? null : (ms / 1000).toFixed(1);
}
