/**
 * Fetching a Client ID Metadata Document (the client_id is an HTTPS URL; draft-ietf-oauth-client-id-metadata-document)
 * with the SSRF guards a server fetching URLs chosen by strangers needs: HTTPS only, no redirects, a size and a time
 * limit, and no private, loopback or link-local address (checked on the address actually connected to, so a DNS
 * name cannot be rebound to one between check and connection). Tests may allow local addresses by configuration.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request } from 'node:https';
import { BlockList, isIP } from 'node:net';
import { OAuthError } from './oauth-error.ts';

/** The largest document accepted: the draft suggests 5 KB; a real one is a few hundred bytes. */
export const CLIENT_METADATA_MAX_BYTES = 5 * 1024;
/** How long fetching one may take, connection included: a user's browser is waiting on the authorize page. */
export const CLIENT_METADATA_TIMEOUT_MS = 5_000;

export interface ClientMetadataFetchOptions {
  /** PARLEY_OAUTH_CLIENT_METADATA_ALLOW_PRIVATE: tests serve documents from loopback; never in production. */
  allowPrivateAddresses: boolean;
  /** Extra trusted certificate authorities (PEM), for a test server's self-signed certificate. */
  ca?: string;
}

/** Addresses a fetch must never reach: private, loopback, link-local, shared, multicast and reserved ranges. */
const BLOCKED = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 3],
] as const)
  BLOCKED.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 127],
  ['64:ff9b::', 96],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  BLOCKED.addSubnet(network, prefix, 'ipv6');

export function addressBlocked(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  if (family === 6) {
    // An IPv4-mapped IPv6 address is judged as the IPv4 address it carries. (A `::ffff:0:0/96` rule cannot do it:
    // BlockList applies such a rule to every IPv4 address too.)
    const mapped = /^::ffff:(?:(\d+\.\d+\.\d+\.\d+)|([0-9a-f]{1,4}):([0-9a-f]{1,4}))$/i.exec(address);
    if (mapped) {
      const v4 =
        mapped[1] ?? [mapped[2]!, mapped[3]!].flatMap((h) => [parseInt(h, 16) >> 8, parseInt(h, 16) & 255]).join('.');
      return BLOCKED.check(v4, 'ipv4');
    }
    return BLOCKED.check(address, 'ipv6');
  }
  return BLOCKED.check(address, 'ipv4');
}

/** The JSON document at an HTTPS URL, or an OAuthError saying why it could not be had. */
export async function fetchClientMetadata(url: URL, options: ClientMetadataFetchOptions): Promise<unknown> {
  if (url.protocol !== 'https:') throw new OAuthError('invalid_client', 'client_id must be an https URL');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!options.allowPrivateAddresses && isIP(host) && addressBlocked(host)) {
    throw new OAuthError('invalid_client', 'client_id names a private or loopback address');
  }
  const guardedLookup = (
    hostname: string,
    lookupOptions: { all?: boolean },
    callback: (error: Error | null, address: string | LookupAddress[], family?: number) => void,
  ) => {
    dnsLookup(hostname, { all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const allowed = options.allowPrivateAddresses
        ? addresses
        : addresses.filter((entry) => !addressBlocked(entry.address));
      if (allowed.length === 0) return callback(new Error('the name resolves only to private addresses'), []);
      if (lookupOptions.all) return callback(null, allowed);
      return callback(null, allowed[0]!.address, allowed[0]!.family);
    });
  };
  return new Promise((resolve, reject) => {
    const fail = (description: string) => reject(new OAuthError('invalid_client', description));
    const outgoing = request(
      url,
      {
        method: 'GET',
        headers: { accept: 'application/json' },
        lookup: guardedLookup as never,
        timeout: CLIENT_METADATA_TIMEOUT_MS,
        signal: AbortSignal.timeout(CLIENT_METADATA_TIMEOUT_MS),
        ...(options.ca ? { ca: options.ca } : {}),
      },
      (response) => {
        if (response.statusCode !== 200) {
          response.resume();
          return fail(`the client metadata document answered HTTP ${response.statusCode} (redirects are not followed)`);
        }
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > CLIENT_METADATA_MAX_BYTES) {
            outgoing.destroy();
            return fail(`the client metadata document is larger than ${CLIENT_METADATA_MAX_BYTES} bytes`);
          }
          chunks.push(chunk);
        });
        response.on('end', () => {
          try {
            resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
          } catch {
            fail('the client metadata document is not JSON');
          }
        });
        response.on('error', () => fail('the client metadata document could not be read'));
      },
    );
    outgoing.on('timeout', () => outgoing.destroy(new Error('timed out')));
    outgoing.on('error', (error) => fail(`the client metadata document could not be fetched: ${error.message}`));
    outgoing.end();
  });
}
