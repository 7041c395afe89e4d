/**
 * The shape of the client's commands (`parley <resource> <verb> …`, docs/architecture.md §20): each verb declares its
 * own options, parsed strictly (an unknown or misspelt flag is an error, not silently ignored), on top of the options
 * every verb shares — where Parley is, which key, --json, --progress.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { CliError } from '../cli-error.ts';
import { resolveConnection, type ConnectionFlags } from './profile.ts';
import { RestApi } from './rest-api.ts';

type Options = NonNullable<ParseArgsConfig['options']>;
export type Flags = Record<string, string | boolean | undefined>;

export const SHARED_OPTIONS = {
  url: { type: 'string' },
  key: { type: 'string' },
  profile: { type: 'string' },
  json: { type: 'boolean' },
  progress: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies Options;

export interface Verb {
  /** The verb's arguments and flags, as shown in the help, e.g. `ID [--out FILE]`. */
  usage: string;
  summary: string;
  options?: Options;
  run(context: ClientContext, positionals: string[], flags: Flags): Promise<number>;
}

export interface Resource {
  name: string;
  summary: string;
  verbs: Record<string, Verb>;
}

/** What a verb works with: the API, the caller's organisation (read once, from the key) and the output flags. */
export class ClientContext {
  readonly json: boolean;
  readonly progress: boolean;
  readonly #connection: ConnectionFlags;
  #api: RestApi | undefined;
  #organisationId: string | undefined;

  constructor(flags: Flags) {
    this.json = flags.json === true;
    this.progress = flags.progress === true;
    this.#connection = {
      url: flags.url as string | undefined,
      key: flags.key as string | undefined,
      profile: flags.profile as string | undefined,
    };
  }

  async api(): Promise<RestApi> {
    if (!this.#api) {
      const { url, key } = await resolveConnection(this.#connection);
      this.#api = new RestApi(url, key);
    }
    return this.#api;
  }

  /** The organisation the key belongs to: the routes under /organisation/{id} need it spelt out. */
  async organisationId(): Promise<string> {
    if (!this.#organisationId) {
      const me = await (await this.api()).request<{ organisationId: string }>('GET', '/api-keys/me');
      this.#organisationId = me.organisationId;
    }
    return this.#organisationId;
  }
}

export async function runVerb(resource: Resource, argv: string[]): Promise<number> {
  const [verbName, ...rest] = argv;
  const verb = verbName ? resource.verbs[verbName] : undefined;
  if (!verb) {
    if (verbName && verbName !== '--help' && verbName !== '-h') {
      process.stderr.write(`parley ${resource.name}: unknown command "${verbName}"\n\n${resourceUsage(resource)}\n`);
      return 2;
    }
    process.stdout.write(`${resourceUsage(resource)}\n`);
    return 0;
  }
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: rest,
      options: { ...SHARED_OPTIONS, ...verb.options },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw new CliError(`parley ${resource.name} ${verbName}: ${(error as Error).message}`);
  }
  const flags = parsed.values as Flags;
  if (flags.help) {
    process.stdout.write(`Usage: parley ${resource.name} ${verbName} ${verb.usage}\n  ${verb.summary}\n`);
    return 0;
  }
  return verb.run(new ClientContext(flags), parsed.positionals, flags);
}

export function resourceUsage(resource: Resource): string {
  const lines = Object.entries(resource.verbs).map(([name, verb]) => {
    const left = `  ${resource.name} ${name} ${verb.usage}`;
    return left.length < 46 ? `${left.padEnd(46)}${verb.summary}` : `${left}\n${' '.repeat(46)}${verb.summary}`;
  });
  return `parley ${resource.name}: ${resource.summary}\n\n${lines.join('\n')}\n\n${SHARED_USAGE}`;
}

export const SHARED_USAGE =
  'Every command takes --url URL, --key KEY or --profile NAME (else PARLEY_URL, PARLEY_API_KEY, the profile ' +
  'saved by `parley login`, or a local `parley start`), --json for the raw answer, and --progress to show progress ' +
  'on uploads and downloads when standard error is not a terminal.';

/** The one positional a verb needs, e.g. an id. */
export function positional(positionals: string[], index: number, what: string): string {
  const value = positionals[index];
  if (!value) throw new CliError(`missing ${what}`);
  return value;
}

export function requiredFlag(flags: Flags, name: string): string {
  const value = flags[name];
  if (typeof value !== 'string' || !value.trim()) throw new CliError(`--${name} is required`);
  return value.trim();
}

/** A whole-number flag within bounds, or undefined when not given. */
export function numberFlag(flags: Flags, name: string, min: number, max: number): number | undefined {
  const value = flags[name];
  if (value === undefined) return undefined;
  const number = Number(value);
  if (typeof value !== 'string' || !Number.isInteger(number) || number < min || number > max)
    throw new CliError(`--${name} must be a whole number from ${min} to ${max}`);
  return number;
}
