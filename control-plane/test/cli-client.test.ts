/**
 * The `parley` REST client (docs/architecture.md §20) run as a child process, the way a customer runs it, against a
 * Parley listening on a real port with the carrier simulator, an engine and the speech workers (PhoneCallRig):
 * login and its profile file, agents from JSON files, a phone call placed, ended and read back (transcript,
 * recording), a knowledge base uploaded with a progress bar and searched, a campaign loaded from a CSV file,
 * started, paused and exported, results exported; and the refusals a user meets (a wrong key, a bad field, an
 * unknown flag, nobody at the URL).
 */
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callCodecs, subjects } from '@parley/engine/protocol';
import { KnowledgeJob } from '../src/knowledge/knowledge-job.ts';
import { OUR_NUMBERS, PhoneCallRig, waitFor } from './support/phone-call-rig.ts';
import { runCli, type CliResult } from './support/processes.ts';
import { updateAgentColumns } from './support/seed.ts';

let rig: PhoneCallRig;
let dir: string;
let recordings: string;
let knowledgeJob: KnowledgeJob;
/** Each run of the command starts a Node process (a second or two, several on a loaded machine). */
const CLI_TEST_MS = 120_000;
/** The environment of every run: its own profile file, and no key or URL but what a test gives. */
let env: Record<string, string | undefined>;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'parley-cli-client-'));
  recordings = path.join(dir, 'recordings');
  rig = await PhoneCallRig.start({ recordingsDir: recordings });
  knowledgeJob = new KnowledgeJob(rig.db.sql, pino({ level: 'silent' }), { pollIntervalMs: 200 }).start();
  rig.app.campaigns.uploads.start();
  env = {
    PARLEY_PROFILES_FILE: path.join(dir, 'config', 'profiles.json'),
    PARLEY_DATA_DIR: path.join(dir, 'data'), // no bootstrap file there
    PARLEY_URL: undefined,
    PARLEY_API_KEY: undefined,
    PARLEY_PROFILE: undefined,
  };
}, 120_000);

afterAll(async () => {
  await knowledgeJob?.stop();
  await rig?.app.campaigns.uploads.stop();
  await rig?.close();
  await rm(dir, { recursive: true, force: true });
}, 60_000);

/**
 * `parley <args>`; fails the test with its output when the exit code is not `code`. Past the login tests, the
 * URL and key come from the environment, so each describe runs on its own.
 */
async function parley(args: string[], code = 0): Promise<CliResult> {
  const loggingIn = args[0] === 'login' || args[0] === 'logout' || args[0] === 'whoami' || args.includes('--url');
  const result = await runCli(
    args,
    loggingIn ? env : { ...env, PARLEY_URL: rig.publicUrl, PARLEY_API_KEY: rig.org.key },
  );
  expect(result.code, `parley ${args.join(' ')}\n${result.stdout}\n${result.stderr}`).toBe(code);
  return result;
}

const json = async <T = Record<string, unknown>>(args: string[]): Promise<T> =>
  JSON.parse((await parley([...args, '--json'])).stdout) as T;

async function file(name: string, content: string | Uint8Array): Promise<string> {
  const at = path.join(dir, name);
  await writeFile(at, content);
  return at;
}

describe('parley login, whoami, logout', () => {
  it(
    'refuses a wrong key before saving anything, then saves a checked key in a file only its owner reads',
    async () => {
      const wrong = await parley(['login', '--url', rig.publicUrl, '--key', 'pk_wrong'], 2);
      expect(wrong.stderr).toContain('Parley refused the API key (401');
      await expect(stat(env.PARLEY_PROFILES_FILE!)).rejects.toThrow();

      const login = await parley(['login', '--url', rig.publicUrl, '--key', rig.org.key]);
      expect(login.stderr).toContain(`of organisation ${rig.org.organisationId}`);
      const saved = JSON.parse(await readFile(env.PARLEY_PROFILES_FILE!, 'utf8'));
      expect(saved).toEqual({ default: { url: rig.publicUrl, key: rig.org.key } });
      expect((await stat(env.PARLEY_PROFILES_FILE!)).mode & 0o777).toBe(0o600);

      const me = await json<{ organisationId: string; url: string; scopes: string[] }>(['whoami']);
      expect(me).toMatchObject({ organisationId: rig.org.organisationId, url: rig.publicUrl });
      expect(me.scopes.length).toBeGreaterThan(0);
    },
    CLI_TEST_MS,
  );

  it(
    'takes a named profile, and PARLEY_API_KEY over the file; logout forgets a profile',
    async () => {
      await parley(['login', '--url', rig.publicUrl, '--key', rig.org.key, '--profile', 'spare']);
      expect((await parley(['whoami', '--profile', 'spare'])).stdout).toContain(rig.org.organisationId);
      const envKey = await runCli(['whoami'], { ...env, PARLEY_API_KEY: 'pk_from_env' });
      expect(envKey.code).toBe(2);
      expect(envKey.stderr).toContain('401');
      await parley(['logout', '--profile', 'spare']);
      expect((await parley(['whoami', '--profile', 'spare'], 2)).stderr).toContain('no profile "spare"');
    },
    CLI_TEST_MS,
  );

  it(
    'says when nobody answers at the URL, and names an unknown flag',
    async () => {
      const away = await parley(['agents', 'list', '--url', 'http://127.0.0.1:9'], 2);
      expect(away.stderr).toMatch(/Parley is not running at http:\/\/127\.0\.0\.1:9 .*npm start/);
      const typo = await parley(['agents', 'list', '--serch', 'x'], 2);
      expect(typo.stderr).toContain("Unknown option '--serch'");
    },
    CLI_TEST_MS,
  );
});

describe('agents, calls and results', () => {
  let agentId: string;
  let callId: string;

  it(
    'creates an agent from a JSON file, lists it as a table, changes and reads it',
    async () => {
      const spec = await file(
        'agent.json',
        JSON.stringify({
          name: 'CLI booking line',
          agentIdentity: 'You are the booking assistant of Sunrise Dental.',
          agentTask: 'Book appointments.',
          greetingMessage: 'Hello {{participantName}}, this is Sunrise Dental.',
        }),
      );
      const created = await parley(['agents', 'create', '--file', spec]);
      agentId = created.stdout.trim();
      expect(agentId).toMatch(/^[0-9a-f]{24}$/);

      const table = (await parley(['agents', 'list', '--search', 'CLI booking'])).stdout.split('\n');
      expect(table[0]).toMatch(/^ID\s+NAME\s+TYPE\s+MODE\s+ACTIVE\s+NUMBER\s+CALLS$/);
      expect(table[1]).toMatch(new RegExp(`^${agentId}\\s+CLI booking line\\s+VOICE\\s+PROMPT\\s+yes`));

      await parley(['agents', 'update', agentId, '--file', await file('rename.json', '{"name":"CLI front desk"}')]);
      expect(await json(['agents', 'get', agentId])).toMatchObject({ id: agentId, name: 'CLI front desk' });
      // The number the calls go out from (bought and assigned through /telephony in a real organisation).
      await updateAgentColumns(rig.db.sql, agentId, { calling_number: OUR_NUMBERS['carrier-b'] });
    },
    CLI_TEST_MS,
  );

  it(
    'shows the field the server refused',
    async () => {
      const bad = await parley(['agents', 'create', '--file', await file('bad.json', '{"name":"No greeting"}')], 2);
      expect(bad.stderr).toMatch(
        /POST \/voice\/agents failed with 400: Validation failed: .*greetingMessage is required/,
      );
      const notJson = await parley(['agents', 'create', '--file', await file('broken.json', '{"name":')], 2);
      expect(notJson.stderr).toContain('is not JSON');
    },
    CLI_TEST_MS,
  );

  it(
    'places a phone call, ends it, and reads its record and transcript',
    async () => {
      const to = rig.nextNumber();
      const placed = await parley(['calls', 'place', '--agent', agentId, '--to', to, '--name', 'Ravi']);
      callId = placed.stdout.trim();
      expect(placed.stderr).toContain(`call ${callId} initiated (sip)`);
      const phone = await rig.sim.nextCall();
      expect(phone.to).toBe(to);
      await phone.stream;
      await waitFor(
        () => rig.transcript(callId),
        (lines) => lines.some((l) => l.speaker === 'assistant'),
        'the greeting to be written',
        30_000,
      );

      await parley(['calls', 'end', callId]);
      const record = await waitFor(
        () => json<{ endedAt: string | null; callStatus: string }>(['calls', 'get', callId]),
        (r) => r.endedAt !== null,
        'the call to end',
        30_000,
      );
      expect(record.callStatus).toBe('COMPLETED');

      const transcript = (await parley(['calls', 'transcript', callId])).stdout;
      expect(transcript).toMatch(/^\s+\d+\.\ds agent : Hello Ravi, this is Sunrise Dental\./m);
      const history = (await parley(['calls', 'list', '--agent', agentId])).stdout;
      expect(history).toContain(callId);
      expect(history).toContain(to);
    },
    CLI_TEST_MS,
  );

  it(
    "downloads the call's recording byte for byte, with progress when asked",
    async () => {
      // The engine announces a recording with this event once its file is written (docs/architecture.md §3).
      const audio = new Uint8Array(300_000).map((_, i) => (i * 31) % 251);
      const relative = `${rig.org.organisationId}/${callId}.ogg`;
      await mkdir(path.join(recordings, rig.org.organisationId), { recursive: true });
      await writeFile(path.join(recordings, relative), audio);
      rig.bus.publish(
        subjects.callEvents(callId),
        callCodecs.event.encode({ type: 'recording', path: relative, format: 'audio/ogg', durationMs: 5_000 }),
      );
      await waitFor(
        () => rig.record(callId),
        (r) => r.recording_url !== null,
        'the recording to be announced',
      );

      const out = path.join(dir, 'call.ogg');
      const downloaded = await parley(['calls', 'recording', callId, '--out', out, '--progress']);
      expect(downloaded.stdout.trim()).toBe(out);
      expect(downloaded.stderr).toMatch(/downloading call\.ogg \[#{30}\] 100% 293\.0 KB\/293\.0 KB/);
      expect(new Uint8Array(await readFile(out))).toEqual(audio);
      // The temporary file is gone; a refused download leaves no file at all.
      await expect(stat(`${out}.part`)).rejects.toThrow();
      await parley(['calls', 'recording', '0123456789abcdef01234567', '--out', path.join(dir, 'none.ogg')], 2);
      await expect(stat(path.join(dir, 'none.ogg'))).rejects.toThrow();
    },
    CLI_TEST_MS,
  );

  it(
    "exports the agent's results as CSV and the call history as a workbook",
    async () => {
      const csv = path.join(dir, 'results.csv');
      await parley(['results', 'export', agentId, '--out', csv]);
      const lines = (await readFile(csv, 'utf8')).trim().split('\n');
      expect(lines[0]).toMatch(/call/i);
      expect(lines.some((line) => line.includes(callId))).toBe(true);
      const summary = await json<{ calls: number }>(['results', 'summary', agentId]);
      expect(summary.calls).toBe(1);

      const xlsx = path.join(dir, 'calls.xlsx');
      const saved = await json<{ bytes: number; contentType: string }>(['calls', 'export', '--out', xlsx]);
      expect(saved.contentType).toContain('spreadsheetml');
      expect((await readFile(xlsx)).subarray(0, 2).toString()).toBe('PK'); // a zip, as every .xlsx is
    },
    CLI_TEST_MS,
  );
});

describe('knowledge', () => {
  it(
    'uploads documents with a progress bar, waits until searchable, searches and deletes',
    async () => {
      const hours = await file(
        'hours.md',
        '# Opening hours\n\nWe are open Monday to Friday from 8 am to 6 pm.\n\n## Sundays\n\nOn Sundays we open at 10 am and close at 2 pm.\n',
      );
      const parking = await file('parking.txt', 'Free parking is behind the building, entrance on Mill Lane.\n');
      const upload = await parley([
        'knowledge',
        'upload',
        '--name',
        'Front desk',
        hours,
        parking,
        '--wait',
        '--progress',
      ]);
      const id = upload.stdout.trim();
      expect(upload.stderr).toMatch(/uploading \[#{30}\] 100%/);
      expect(upload.stderr).toMatch(/knowledge base "Front desk": ready, \d+ chunks from 2 files/);

      const found = await json<{ results: { document_name: string; heading: string; text: string }[] }>([
        'knowledge',
        'search',
        id,
        'what time do you open on Sundays',
      ]);
      expect(found.results[0]).toMatchObject({ document_name: 'Front desk', heading: 'Opening hours › Sundays' });
      expect(found.results[0]!.text).toContain('10 am');

      expect((await parley(['knowledge', 'list'])).stdout).toMatch(new RegExp(`${id}\\s+Front desk\\s+ready\\s+2`));
      const wrongType = await parley(['knowledge', 'upload', '--name', 'x', await file('a.exe', 'MZ')], 2);
      expect(wrongType.stderr).toContain('only .pdf .docx .txt .md .csv .json files');
      await parley(['knowledge', 'delete', id]);
      expect((await parley(['knowledge', 'get', id], 2)).stderr).toContain('404');
    },
    CLI_TEST_MS,
  );
});

describe('campaigns', () => {
  it(
    'creates a campaign, loads contacts from a CSV file, starts, pauses and exports it',
    async () => {
      const agentId = await rig.createAgent(OUR_NUMBERS['carrier-a']);
      const spec = await file(
        'campaign.json',
        JSON.stringify({
          name: 'CLI reminders',
          organisationId: rig.org.organisationId,
          voiceAgentId: agentId,
          dialingNumber: OUR_NUMBERS['carrier-a'],
          callStartTime: '00:00',
          callEndTime: '23:59',
          timezone: 'UTC',
        }),
      );
      const id = (await parley(['campaigns', 'create', '--file', spec])).stdout.trim();
      const csv = await file(
        'contacts.csv',
        'Phone,Name,Plan\n+14155553001,Asha,gold\n+14155553001,Asha,gold\nnot a number,Bo,x\n',
      );
      const loaded = await parley(['campaigns', 'contacts', id, csv]);
      expect(loaded.stderr).toContain('1 contacts added of 3 rows (1 duplicates, 1 invalid)');

      const stats = await json<{ contacts: { total: number } }>(['campaigns', 'stats', id]);
      expect(stats.contacts.total).toBe(1);
      expect((await parley(['campaigns', 'list'])).stdout).toMatch(new RegExp(`${id}\\s+CLI reminders\\s+DRAFT\\s+1`));

      // Paused at once: the test is about the commands, not the dialler (tested in campaign-dialler.test.ts).
      await parley(['campaigns', 'start', id]);
      const paused = await parley(['campaigns', 'pause', id]);
      expect(paused.stderr).toContain('campaign "CLI reminders": PAUSED');

      const out = path.join(dir, 'contacts-export.csv');
      await parley(['campaigns', 'export', id, '--out', out]);
      const exported = await readFile(out, 'utf8');
      expect(exported).toContain('+14155553001');
      expect(exported).toContain('Asha');
    },
    CLI_TEST_MS,
  );
});
