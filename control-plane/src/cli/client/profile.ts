/**
 * Where the `parley` client finds Parley and its API key (docs/architecture.md §20), first found wins:
 *   1. --url / --key on the command line;
 *   2. PARLEY_URL / PARLEY_API_KEY in the environment;
 *   3. the profile file (`parley login` writes it): --profile NAME, else PARLEY_PROFILE, else "default";
 *   4. the bootstrap file of a local `parley start` (its first start writes the owner's key there), so the quick
 *      start's commands work with nothing set.
 * The profile file is PARLEY_PROFILES_FILE, else $XDG_CONFIG_HOME/parley/profiles.json (~/.config when unset),
 * written with mode 0600: it holds keys.
 */
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { BOOTSTRAP_FILE, type BootstrapFile } from '../../bootstrap-file.ts';
import { dataDirFrom } from '../../data-dir.ts';
import { CliError } from '../cli-error.ts';

export const DEFAULT_URL = 'http://127.0.0.1:3000';
export const DEFAULT_PROFILE = 'default';

export interface Profile {
  url: string;
  key: string;
}

export interface ConnectionFlags {
  url?: string;
  key?: string;
  profile?: string;
}

type ProfilesFile = Record<string, Partial<Profile>>;

export function profilesFile(): string {
  const configured = process.env.PARLEY_PROFILES_FILE;
  if (configured) return path.resolve(configured);
  const configHome = process.env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config');
  return path.join(configHome, 'parley', 'profiles.json');
}

export function profileName(flags: ConnectionFlags): string {
  return flags.profile ?? process.env.PARLEY_PROFILE ?? DEFAULT_PROFILE;
}

/** The URL and key this command talks with; a CliError naming every place looked when no key is found. */
export async function resolveConnection(flags: ConnectionFlags): Promise<Profile> {
  const name = profileName(flags);
  const saved = (await readProfiles())[name];
  if (flags.profile && !saved) throw new CliError(`no profile "${name}" in ${profilesFile()}: run parley login first`);
  const bootstrap = saved ? undefined : await readBootstrap();
  const url = flags.url ?? process.env.PARLEY_URL ?? saved?.url ?? bootstrap?.baseUrl ?? DEFAULT_URL;
  const key = flags.key ?? process.env.PARLEY_API_KEY ?? saved?.key ?? bootstrap?.apiKey;
  if (!key)
    throw new CliError(
      `no API key: pass --key, set PARLEY_API_KEY, run \`parley login --url URL --key KEY\`, or run where ` +
        `${path.join(dataDirFrom(process.env), BOOTSTRAP_FILE)} is (parley start writes it on first start)`,
    );
  return { url, key };
}

export async function saveProfile(name: string, profile: Profile): Promise<string> {
  const file = profilesFile();
  const profiles = await readProfiles();
  profiles[name] = profile;
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  await writeFile(file, `${JSON.stringify(profiles, null, 2)}\n`, { mode: 0o600 });
  await chmod(file, 0o600); // an older file keeps its mode on write
  return file;
}

/** Removes a profile; false when there was none of that name. */
export async function removeProfile(name: string): Promise<boolean> {
  const profiles = await readProfiles();
  if (!profiles[name]) return false;
  delete profiles[name];
  await writeFile(profilesFile(), `${JSON.stringify(profiles, null, 2)}\n`, { mode: 0o600 });
  return true;
}

async function readProfiles(): Promise<ProfilesFile> {
  let text: string;
  try {
    text = await readFile(profilesFile(), 'utf8');
  } catch {
    return {}; // never logged in here
  }
  try {
    const parsed = JSON.parse(text) as unknown;
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as ProfilesFile;
  } catch {
    // reported below
  }
  throw new CliError(`${profilesFile()} is not a JSON object of profiles: fix or remove it`);
}

export async function readBootstrap(): Promise<BootstrapFile | undefined> {
  try {
    return JSON.parse(await readFile(path.join(dataDirFrom(process.env), BOOTSTRAP_FILE), 'utf8')) as BootstrapFile;
  } catch {
    return undefined; // no first start here
  }
}
