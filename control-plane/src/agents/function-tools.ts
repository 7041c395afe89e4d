/**
 * An agent's webhook tools (spec: functionTools): checking what a client sends, encrypting bearer tokens at rest
 * (docs/architecture.md §7.7), and opening them again for the two readers allowed to see them: a client asking for
 * `includeTools=decrypted`, and the call dispatch that hands the engine its WebhookToolSpec list.
 */
import { Ajv } from 'ajv';
import { KEY_PATTERN, SEARCH_TOOLS, type WebhookToolSpec } from '@parley/engine/protocol';
import type { Static } from '@sinclair/typebox';
import { ApiError, type FieldProblem } from '../errors.ts';
import { isCiphertext, SecretError, type KeyRing } from '../secrets/key-ring.ts';
import type { FunctionToolsInput } from './field-schemas.ts';
import type { StoredTools } from './records.ts';

/**
 * Tools the server runs itself: the search tools an agent gets from its customVariables, ending the call and
 * transferring it. A webhook may not take their names, and they are never handed out as webhooks.
 */
export const BUILT_IN_TOOL_KEYS: readonly string[] = [
  SEARCH_TOOLS.knowledge,
  SEARCH_TOOLS.catalogue,
  'end_call',
  'transfer_call',
];

const keyPattern = new RegExp(KEY_PATTERN);
// Checks that `parameters` is a JSON Schema; it never validates data, so one lenient instance serves every agent.
const schemaChecker = new Ajv({ strict: false, validateSchema: true });

/** The associated data of an organisation's tool tokens: a token copied to another organisation does not open. */
export const toolSecretContext = (organisationId: string) => `agent-tools:${organisationId}`;

/**
 * The stored form of sent tools: every problem is reported at once, each naming its field. A plain bearer token is
 * encrypted; a ciphertext sent back (as GET returns it) is kept when it opens for this organisation.
 */
export function prepareTools(
  input: FunctionToolsInput | null,
  ring: KeyRing | undefined,
  organisationId: string,
): StoredTools {
  const problems: FieldProblem[] = [];
  const stored: StoredTools = {};
  for (const [key, tool] of Object.entries(input ?? {})) {
    const at = `functionTools.${key}`;
    if (!keyPattern.test(key)) {
      problems.push({
        field: at,
        message: 'a tool key must start with a letter and hold only letters, digits, _ and - (at most 64)',
      });
    } else if (BUILT_IN_TOOL_KEYS.includes(key)) {
      problems.push({
        field: at,
        message: `"${key}" is a built-in tool the server provides; give the webhook another key`,
      });
    }
    for (const header of Object.keys(tool.headers ?? {})) {
      if (header.toLowerCase() === 'authorization') {
        problems.push({
          field: `${at}.headers.${header}`,
          message: 'send the token as bearerToken, which is stored encrypted',
        });
      } else if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(header)) {
        problems.push({ field: `${at}.headers.${header}`, message: 'is not a valid header name' });
      }
    }
    if (tool.parameters !== undefined) problems.push(...parameterProblems(tool.parameters, `${at}.parameters`));
    const { bearerToken, ...rest } = tool;
    const entry = { ...rest } as StoredTools[string];
    if (bearerToken !== undefined) {
      const sealed = sealToken(bearerToken, ring, organisationId, `${at}.bearerToken`, problems);
      if (sealed) entry.bearerToken = sealed;
    }
    stored[key] = entry;
  }
  if (problems.length) {
    const listed = problems.map((p) => `${p.field} ${p.message}`).join('; ');
    throw new ApiError('validation_failed', `Validation failed: ${listed}`, { fields: problems });
  }
  return stored;
}

function parameterProblems(parameters: Record<string, unknown>, field: string): FieldProblem[] {
  if (parameters.type !== undefined && parameters.type !== 'object') {
    return [{ field, message: 'must be a JSON Schema of an object (type "object"): the model sends named arguments' }];
  }
  if (!schemaChecker.validateSchema(parameters)) {
    const first = schemaChecker.errors?.[0];
    const where = first?.instancePath ? ` at ${first.instancePath}` : '';
    return [{ field, message: `is not a valid JSON Schema${where}: ${first?.message ?? 'invalid'}` }];
  }
  return [];
}

function sealToken(
  token: string,
  ring: KeyRing | undefined,
  organisationId: string,
  field: string,
  problems: FieldProblem[],
): string | undefined {
  if (!ring) throw secretsUnavailable();
  if (!isCiphertext(token)) return ring.encrypt(token, toolSecretContext(organisationId));
  try {
    ring.decrypt(token, toolSecretContext(organisationId));
    return token;
  } catch (error) {
    if (!(error instanceof SecretError)) throw error;
    problems.push({
      field,
      message: 'is an encrypted value this server cannot open for this organisation; send the token itself',
    });
    return undefined;
  }
}

/** The tools with their tokens in clear, built-in tools left out: what `includeTools=decrypted` returns. */
export function decryptTools(tools: StoredTools, ring: KeyRing | undefined, organisationId: string): StoredTools {
  const open: StoredTools = {};
  for (const [key, tool] of Object.entries(tools)) {
    if (BUILT_IN_TOOL_KEYS.includes(key)) continue;
    open[key] =
      tool.bearerToken === undefined
        ? { ...tool }
        : { ...tool, bearerToken: openToken(tool.bearerToken, ring, organisationId) };
  }
  return open;
}

/** The engine's form of the tools (AgentSnapshot.functionTools): keyed entries become a list, tokens in clear. */
export function webhookToolSpecs(
  tools: StoredTools,
  ring: KeyRing | undefined,
  organisationId: string,
): Static<typeof WebhookToolSpec>[] {
  return Object.entries(decryptTools(tools, ring, organisationId)).map(([key, tool]) => {
    const { name: _displayName, ...spec } = tool;
    return { key, ...spec };
  });
}

function openToken(ciphertext: string, ring: KeyRing | undefined, organisationId: string): string {
  if (!ring) throw secretsUnavailable();
  try {
    return ring.decrypt(ciphertext, toolSecretContext(organisationId));
  } catch (error) {
    // A stored token that no configured key opens is an operator's problem (a key dropped from
    // PARLEY_SECRET_KEYS too early), never the caller's: 500, with the reason in the log only.
    throw new ApiError('internal', 'A stored webhook token could not be decrypted', { cause: error });
  }
}

function secretsUnavailable(): ApiError {
  return new ApiError('unavailable', 'Secrets at rest are not configured on this server (PARLEY_SECRET_KEYS)');
}
