/**
 * A local HTTPS server with its own self-signed certificate (made by openssl) that serves OAuth Client ID Metadata
 * Documents, as an AI host's website would. The control plane under test trusts its certificate through the app's
 * oauthClientMetadataCa and reaches its loopback address through PARLEY_OAUTH_CLIENT_METADATA_ALLOW_PRIVATE.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface ClientMetadataServer {
  /** The server's certificate (PEM), to trust. */
  ca: string;
  /** The https URL of a path on the server. */
  url(path: string): string;
  /** Serves `body` (JSON-encoded unless a string) at `path`. */
  serve(path: string, body: unknown): void;
  close(): Promise<void>;
}

export async function startClientMetadataServer(): Promise<ClientMetadataServer> {
  const dir = mkdtempSync(join(tmpdir(), 'parley-cimd-'));
  try {
    // prettier-ignore
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    const ca = readFileSync(join(dir, 'cert.pem'), 'utf8');
    const key = readFileSync(join(dir, 'key.pem'));
    const documents = new Map<string, string>();
    const server = createServer({ key, cert: ca }, (request, response) => {
      const body = documents.get(request.url ?? '');
      if (body === undefined) return response.writeHead(404).end();
      response.writeHead(200, { 'content-type': 'application/json' }).end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return {
      ca,
      url: (path) => origin + path,
      serve: (path, body) => documents.set(path, typeof body === 'string' ? body : JSON.stringify(body)),
      close: () => new Promise((resolve) => server.close(() => resolve())),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
