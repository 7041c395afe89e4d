/**
 * One trunk's registration (RFC 3261 §10; docs/architecture.md §11 "Registration"): REGISTER our Contact for the
 * address of record `sip:<username>@<host>` with the trunk's registrar, answer its digest challenge (once per
 * attempt: most registrars challenge every REGISTER with a fresh nonce), and keep it alive —
 *
 *   2xx          registered; refreshed before the granted time runs out (half of it for short grants, 60 s before
 *                the end for long ones). The grant is our Contact's `expires`, else the Expires header.
 *   423          once more at once with the registrar's Min-Expires.
 *   other, none  failing (the status kept; 408 when the registrar did not answer); retried after a back-off that
 *                doubles from `retry.minMs` to `retry.maxMs`.
 *
 * `unregister` sends Expires: 0 (at shutdown, or when the trunk no longer asks for registration) and waits for its
 * answer a bounded time. One Call-ID and a rising CSeq serve every REGISTER of it (§10.2.4).
 */
import { randomBytes } from 'node:crypto';
import type { SipRegistrationStateName, SipRegistrationTarget } from '@parley/engine/protocol';
import { hostPort, viaHeader, type LocalContact } from '../sip/dialog.ts';
import { digestAuthorization, parseChallenge } from '../sip/digest.ts';
import { header, headerValues, nameAddr, parseUri, type SipRequest, type SipResponse } from '../sip/message.ts';
import type { Peer } from '../sip/transport.ts';
import type { UserAgent } from '../sip/user-agent.ts';

export interface RegistrationRetry {
  minMs: number;
  maxMs: number;
}
/** Back-off after a failed REGISTER: 5 s doubling to 5 min (a registrar that is down is not hammered). */
export const REGISTRATION_RETRY: RegistrationRetry = { minMs: 5_000, maxMs: 300_000 };
/** How long an unregister may wait for the registrar before the gateway moves on, ms. */
export const UNREGISTER_WAIT_MS = 3_000;

export interface RegistrationSnapshot {
  trunkId: string;
  organisationId: string;
  registrar: string;
  transport: 'udp' | 'tcp';
  state: SipRegistrationStateName;
  /** The registrar's last final status (408: no answer). */
  sipStatus?: number;
  reason?: string;
  /** When the granted registration runs out, while registered (ISO 8601). */
  expiresAt?: string;
  /** Failed attempts since the last success. */
  failures: number;
  at: string;
}

/** A user name as a SIP URI's user part (RFC 3261 §25.1): anything outside its characters %-escaped. */
export function uriUser(name: string): string {
  return [...Buffer.from(name, 'utf8')]
    .map((byte) => {
      const char = String.fromCharCode(byte);
      return /[A-Za-z0-9\-_.!~*'()&=+$,;?/]/.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
    })
    .join('');
}

/** When to refresh a grant of `seconds`, ms from now. */
export function refreshDelayMs(seconds: number): number {
  return (seconds <= 120 ? seconds / 2 : seconds - 60) * 1_000;
}

export class TrunkRegistration {
  readonly target: SipRegistrationTarget;
  readonly #ua: UserAgent;
  readonly #retry: RegistrationRetry;
  readonly #onChange: (snapshot: RegistrationSnapshot) => void;
  readonly #peer: Peer;
  readonly #callId = randomBytes(12).toString('hex');
  readonly #fromTag: string;
  #seq = 0;
  #contact: LocalContact | undefined;
  #timer: NodeJS.Timeout | undefined;
  /** Bumped by each attempt and by `unregister`: a late answer to an older attempt is ignored. */
  #attempt = 0;
  #stopped = false;
  /** A 2xx was ever had: only then is there anything to unregister. */
  #everRegistered = false;
  #snapshot: RegistrationSnapshot;

  constructor(
    ua: UserAgent,
    target: SipRegistrationTarget,
    onChange: (snapshot: RegistrationSnapshot) => void,
    retry: RegistrationRetry = REGISTRATION_RETRY,
  ) {
    this.#ua = ua;
    this.target = target;
    this.#retry = retry;
    this.#onChange = onChange;
    this.#fromTag = ua.newTag();
    this.#peer = { transport: target.transport, address: target.host, port: target.port };
    this.#snapshot = {
      trunkId: target.trunkId,
      organisationId: target.organisationId,
      registrar: `${target.host}:${target.port}`,
      transport: target.transport,
      state: 'registering',
      failures: 0,
      at: new Date().toISOString(),
    };
  }

  get snapshot(): RegistrationSnapshot {
    return this.#snapshot;
  }

  start(): void {
    this.#onChange(this.#snapshot);
    void this.#register(this.target.expiresS);
  }

  /** REGISTER with Expires: 0 (when ever registered), then nothing more; resolves once answered or given up. */
  async unregister(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    clearTimeout(this.#timer);
    const attempt = ++this.#attempt;
    if (this.#everRegistered && this.#contact) {
      const response = await Promise.race([
        this.#send(0, attempt, true),
        new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), UNREGISTER_WAIT_MS).unref()),
      ]);
      this.#set({ state: 'unregistered', ...(response && { sipStatus: response.status, reason: response.reason }) });
    } else {
      this.#set({ state: 'unregistered' });
    }
  }

  async #register(expires: number, minExpiresRetried = false): Promise<void> {
    if (this.#stopped) return;
    const attempt = ++this.#attempt;
    let response: SipResponse | undefined;
    try {
      this.#contact ??= await this.#ua.contactFor(this.#peer);
      response = await this.#send(expires, attempt, false);
    } catch (error) {
      return this.#failed(attempt, 503, `REGISTER not sent: ${String(error)}`);
    }
    if (attempt !== this.#attempt || this.#stopped) {
      // Registered just as we were told to stop (before any 2xx, so nothing was unregistered): undo it.
      if (this.#stopped && !this.#everRegistered && response && response.status >= 200 && response.status < 300)
        void this.#send(0, this.#attempt, true);
      return;
    }
    if (!response) return this.#failed(attempt, 408, 'no response from the registrar');
    if (response.status >= 200 && response.status < 300) {
      const granted = this.#granted(response, expires);
      this.#everRegistered = true;
      this.#set({
        state: 'registered',
        sipStatus: response.status,
        reason: response.reason,
        expiresAt: new Date(Date.now() + granted * 1_000).toISOString(),
        failures: 0,
      });
      this.#timer = setTimeout(() => void this.#register(this.target.expiresS), refreshDelayMs(granted)).unref();
      return;
    }
    const minExpires = Number(header(response, 'Min-Expires'));
    if (response.status === 423 && !minExpiresRetried && Number.isInteger(minExpires) && minExpires > expires)
      return this.#register(minExpires, true);
    this.#failed(attempt, response.status, response.reason);
  }

  #failed(attempt: number, sipStatus: number, reason: string): void {
    if (attempt !== this.#attempt || this.#stopped) return;
    const failures = this.#snapshot.failures + 1;
    this.#set({ state: 'failing', sipStatus, reason, failures, expiresAt: undefined });
    const delay = Math.min(this.#retry.minMs * 2 ** (failures - 1), this.#retry.maxMs);
    this.#timer = setTimeout(() => void this.#register(this.target.expiresS), delay).unref();
  }

  /** The grant: our Contact's `expires` in the 2xx, else its Expires header, else what we asked. */
  #granted(response: SipResponse, asked: number): number {
    const ours = hostPort(this.#contact!);
    for (const value of headerValues(response, 'Contact')) {
      const contact = nameAddr(value);
      const uri = contact && parseUri(contact.uri);
      if (!contact || !uri || !contact.uri.includes(ours)) continue;
      const expires = Number(contact.params.expires);
      if (Number.isInteger(expires) && expires > 0) return expires;
    }
    const expires = Number(header(response, 'Expires'));
    return Number.isInteger(expires) && expires > 0 ? expires : asked;
  }

  /** One REGISTER and, on a 401/407 challenge, one answer to it; resolves with the final response. */
  async #send(expires: number, attempt: number, unregistering: boolean): Promise<SipResponse | undefined> {
    const first = await this.#transaction(this.#request(expires));
    if (!first || (first.status !== 401 && first.status !== 407)) return first;
    if (attempt !== this.#attempt || (this.#stopped && !unregistering)) return first;
    const challenge = parseChallenge(
      header(first, first.status === 401 ? 'WWW-Authenticate' : 'Proxy-Authenticate') ?? '',
    );
    if (!challenge) return first;
    const request = this.#request(expires);
    request.headers.push([
      first.status === 401 ? 'Authorization' : 'Proxy-Authorization',
      digestAuthorization(
        challenge,
        { username: this.target.username, password: this.target.password ?? '' },
        'REGISTER',
        request.uri,
      ),
    ]);
    return this.#transaction(request);
  }

  #transaction(request: SipRequest): Promise<SipResponse | undefined> {
    return new Promise((resolve) => {
      this.#ua.request(request, this.#peer, {
        response: (response) => {
          if (response.status >= 200) resolve(response);
        },
        timeout: () => resolve(undefined),
      });
    });
  }

  #request(expires: number): SipRequest {
    const { host, port, transport } = this.target;
    const username = uriUser(this.target.username);
    const contact = this.#contact!;
    const registrar = hostPort({ address: host, port });
    const aor = `<sip:${username}@${host.includes(':') ? `[${host}]` : host}>`;
    this.#seq += 1;
    return {
      kind: 'request',
      method: 'REGISTER',
      uri: `sip:${registrar}${transport === 'tcp' ? ';transport=tcp' : ''}`,
      headers: [
        ['Via', viaHeader(this.#peer, contact)],
        ['Max-Forwards', '70'],
        ['From', `${aor};tag=${this.#fromTag}`],
        ['To', aor],
        ['Call-ID', `${this.#callId}@${contact.address}`],
        ['CSeq', `${this.#seq} REGISTER`],
        ['Contact', `<sip:${username}@${hostPort(contact)};transport=${transport}>`],
        ['Expires', String(expires)],
        ['User-Agent', 'Parley SIP gateway'],
      ],
      body: Buffer.alloc(0),
    };
  }

  #set(change: Partial<RegistrationSnapshot>): void {
    const next = { ...this.#snapshot, ...change, at: new Date().toISOString() };
    if (next.expiresAt === undefined) delete next.expiresAt;
    this.#snapshot = next;
    this.#onChange(next);
  }
}
