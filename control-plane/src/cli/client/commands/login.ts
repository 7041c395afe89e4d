/**
 * `parley login`, `parley logout` and `parley whoami`: the profile file the other client commands read
 * (profile.ts). Login checks the key against the server before saving it, so a typo is caught at once.
 */
import { CliError } from '../../cli-error.ts';
import { requiredFlag, type ClientContext, type Flags, type Resource, type Verb } from '../client-command.ts';
import { notice, printFields, printJson } from '../output.ts';
import { profileName, profilesFile, removeProfile, resolveConnection, saveProfile } from '../profile.ts';
import { RestApi } from '../rest-api.ts';

interface KeyIdentity {
  keyId: string;
  name: string;
  organisationId: string;
  userId: string;
  role: string;
  scopes: string[];
}

const login: Verb = {
  usage: '--url URL --key KEY [--profile NAME]',
  summary: 'check the key with the server, then save URL and key as a profile (default "default")',
  async run(context: ClientContext, _positionals: string[], flags: Flags) {
    const url = requiredFlag(flags, 'url');
    const key = requiredFlag(flags, 'key');
    const me = await new RestApi(url, key).request<KeyIdentity>('GET', '/api-keys/me');
    const name = profileName({ profile: flags.profile as string | undefined });
    const file = await saveProfile(name, { url, key });
    if (context.json) {
      printJson({ profile: name, file, ...me });
      return 0;
    }
    notice(
      `logged in to ${url} as key "${me.name}" of organisation ${me.organisationId}; saved as profile "${name}" in ${file}`,
    );
    return 0;
  },
};

const logout: Verb = {
  usage: '[--profile NAME]',
  summary: 'forget a saved profile',
  async run(context: ClientContext, _positionals: string[], flags: Flags) {
    const name = profileName({ profile: flags.profile as string | undefined });
    if (!(await removeProfile(name))) throw new CliError(`no profile "${name}" in ${profilesFile()}`);
    if (context.json) printJson({ profile: name, removed: true });
    else notice(`forgot profile "${name}"`);
    return 0;
  },
};

const whoami: Verb = {
  usage: '',
  summary: 'the key in use: its organisation, owner, role and scopes',
  async run(context: ClientContext, _positionals: string[], flags: Flags) {
    const { url } = await resolveConnection(flags as { url?: string; key?: string; profile?: string });
    const me = await (await context.api()).request<KeyIdentity>('GET', '/api-keys/me');
    if (context.json) {
      printJson({ url, ...me });
      return 0;
    }
    printFields([
      ['url', url],
      ['key', `${me.name} (${me.keyId})`],
      ['organisation', me.organisationId],
      ['user', `${me.userId} (${me.role})`],
      ['scopes', me.scopes.join(', ')],
    ]);
    return 0;
  },
};

/** Single-verb commands: `parley login …` runs the verb `login` of this resource. */
export const session: Resource = {
  name: 'session',
  summary: 'where the client connects, and with which key',
  verbs: { login, logout, whoami },
};
