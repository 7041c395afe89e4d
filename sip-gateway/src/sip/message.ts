/**
 * SIP messages (RFC 3261 §7): parsing bytes into requests and responses, and writing them back out. Parsing never
 * throws: anything that is not a SIP message we can act on comes back as a refusal saying why, together with the
 * part we could read when it is a request whose Via, From, To, Call-ID and CSeq are good enough to answer 400 to
 * (docs/architecture.md §11). Header names are kept in their canonical long form, compact forms expanded.
 */

/** Largest message read, bytes: a UDP datagram carries at most ~64 KiB, and no INVITE of ours comes near it. */
export const MAX_MESSAGE_BYTES = 65_535;
/** Header fields read, at most: a real INVITE has 10–25; hundreds is an attack or a loop. */
export const MAX_HEADERS = 128;
/** Longest header line, characters: long enough for any Via/Record-Route chain a trunk sends. */
export const MAX_HEADER_LINE = 8_192;

export type HeaderList = [name: string, value: string][];

interface MessageBase {
  headers: HeaderList;
  body: Buffer;
}

export interface SipRequest extends MessageBase {
  kind: 'request';
  method: string;
  uri: string;
}

export interface SipResponse extends MessageBase {
  kind: 'response';
  status: number;
  reason: string;
}

export type SipMessage = SipRequest | SipResponse;

export type ParseResult =
  | { ok: true; message: SipMessage }
  /** `request`: what was read of a request, when it can be answered (400, 505, …); `status` the answer. */
  | { ok: false; why: string; request?: SipRequest; status?: number };

const COMPACT: Record<string, string> = {
  i: 'Call-ID',
  m: 'Contact',
  e: 'Content-Encoding',
  l: 'Content-Length',
  c: 'Content-Type',
  f: 'From',
  s: 'Subject',
  k: 'Supported',
  t: 'To',
  v: 'Via',
  r: 'Refer-To',
  o: 'Event',
  b: 'Referred-By',
  x: 'Session-Expires',
  u: 'Allow-Events',
};

const CANONICAL: Record<string, string> = {
  'call-id': 'Call-ID',
  cseq: 'CSeq',
  'www-authenticate': 'WWW-Authenticate',
  'max-forwards': 'Max-Forwards',
  'mime-version': 'MIME-Version',
};

/** A header name as we store it: compact forms expanded, words capitalised (`call-id` → `Call-ID`). */
export function canonicalName(name: string): string {
  const lower = name.toLowerCase();
  if (lower.length === 1 && COMPACT[lower]) return COMPACT[lower];
  if (CANONICAL[lower]) return CANONICAL[lower];
  return lower.replace(/(^|-)([a-z])/g, (_, dash: string, c: string) => dash + c.toUpperCase());
}

const TOKEN = /^[A-Za-z0-9\-.!%*_+`'~]+$/;
const HEAD_END = Buffer.from('\r\n\r\n');
/** Headers every request must have to be processed at all (RFC 3261 §8.1.1). */
const REQUIRED = ['Via', 'From', 'To', 'Call-ID', 'CSeq'] as const;

export function header(message: MessageBase, name: string): string | undefined {
  for (const [key, value] of message.headers) if (key === name) return value;
  return undefined;
}

export function headers(message: MessageBase, name: string): string[] {
  return message.headers.filter(([key]) => key === name).map(([, value]) => value);
}

/** Every comma-separated value of every `name` header (Via, Record-Route, Route, Contact, Allow), in order. */
export function headerValues(message: MessageBase, name: string): string[] {
  return headers(message, name).flatMap(splitCommas);
}

/** Splits on commas outside quotes and angle brackets. */
export function splitCommas(value: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let quoted = false;
  let start = 0;
  for (let i = 0; i < value.length; i += 1) {
    const c = value[i];
    if (c === '"' && value[i - 1] !== '\\') quoted = !quoted;
    else if (!quoted && c === '<') depth += 1;
    else if (!quoted && c === '>') depth = Math.max(0, depth - 1);
    else if (!quoted && depth === 0 && c === ',') {
      out.push(value.slice(start, i).trim());
      start = i + 1;
    }
  }
  out.push(value.slice(start).trim());
  return out.filter((v) => v.length > 0);
}

/**
 * Where the header block ends in `data`: the index just past the blank line, or -1 while it has not come (TCP
 * framing reads this before the body has arrived).
 */
export function headEnd(data: Buffer): number {
  const at = data.indexOf(HEAD_END);
  return at < 0 ? -1 : at + HEAD_END.length;
}

/**
 * Parses one message. `datagram`: the whole message is `data` (UDP), so a Content-Length shorter than the body
 * cuts it and a longer one is an error; over TCP the framer has already cut the message at its Content-Length.
 */
export function parseMessage(data: Buffer, datagram = true): ParseResult {
  if (data.length > MAX_MESSAGE_BYTES) return { ok: false, why: 'message too large' };
  const end = headEnd(data);
  if (end < 0) return { ok: false, why: 'no blank line after the headers' };
  const head = data.subarray(0, end - 4).toString('latin1');
  if (/[\0]/.test(head)) return { ok: false, why: 'NUL in the headers' };
  const lines = head.split('\r\n');
  const startLine = lines.shift() ?? '';
  const folded: string[] = [];
  for (const line of lines) {
    if (line.length > MAX_HEADER_LINE) return { ok: false, why: 'header line too long' };
    if ((line.startsWith(' ') || line.startsWith('\t')) && folded.length > 0)
      folded[folded.length - 1] += ` ${line.trim()}`;
    else folded.push(line);
  }
  if (folded.length > MAX_HEADERS) return { ok: false, why: 'too many headers' };
  const list: HeaderList = [];
  let bad: string | undefined;
  for (const line of folded) {
    const colon = line.indexOf(':');
    const name = colon > 0 ? line.slice(0, colon).trim() : '';
    if (!TOKEN.test(name)) {
      bad ??= `malformed header line "${line.slice(0, 40)}"`;
      continue;
    }
    list.push([canonicalName(name), line.slice(colon + 1).trim()]);
  }

  const base = { headers: list, body: Buffer.alloc(0) };
  const response = /^SIP\/2\.0 ([1-6]\d\d) (.*)$/.exec(startLine);
  let message: SipMessage;
  if (response) {
    message = { kind: 'response', status: Number(response[1]), reason: response[2] ?? '', ...base };
  } else {
    const request = /^([A-Za-z0-9\-.!%*_+`'~]+) (\S+) (SIP\/\d+\.\d+)$/.exec(startLine);
    if (!request) return { ok: false, why: 'malformed start line' };
    message = { kind: 'request', method: request[1]!, uri: request[2]!, ...base };
    if (request[3] !== 'SIP/2.0') return refuse(message, 'unsupported SIP version', 505);
    if (!/^[a-zA-Z][a-zA-Z0-9+\-.]*:\S+$/.test(request[2]!)) bad ??= 'malformed Request-URI';
  }

  const lengthText = header(message, 'Content-Length');
  const bodyBytes = data.length - end;
  let length = bodyBytes;
  if (lengthText !== undefined) {
    if (!/^\d{1,6}$/.test(lengthText)) return refuse(message, 'malformed Content-Length');
    length = Number(lengthText);
    if (length > bodyBytes) return refuse(message, 'Content-Length beyond the end of the message');
  } else if (!datagram) length = 0;
  message.body = Buffer.from(data.subarray(end, end + length));

  for (const name of REQUIRED) {
    const values = headers(message, name);
    if (values.length === 0) return refuse(message, `missing ${name}`);
    if (name !== 'Via' && values.length > 1) return refuse(message, `more than one ${name}`);
  }
  const cseq = parseCSeq(header(message, 'CSeq')!);
  if (!cseq) return refuse(message, 'malformed CSeq');
  if (message.kind === 'request' && cseq.method !== message.method && message.method !== 'ACK')
    return refuse(message, 'CSeq method does not match the request');
  if (!topVia(message)) return refuse(message, 'malformed Via');
  if (!nameAddr(header(message, 'From')!) || !nameAddr(header(message, 'To')!))
    return refuse(message, 'malformed From or To');
  const maxForwards = header(message, 'Max-Forwards');
  if (maxForwards !== undefined && !/^\d{1,3}$/.test(maxForwards)) return refuse(message, 'malformed Max-Forwards');
  if (bad) return refuse(message, bad);
  return { ok: true, message };
}

function refuse(message: SipMessage, why: string, status = 400): ParseResult {
  // A request can be answered only when its transaction can be named: a good top Via, Call-ID, CSeq, From and To.
  const answerable =
    message.kind === 'request' &&
    message.method !== 'ACK' &&
    topVia(message) !== undefined &&
    parseCSeq(header(message, 'CSeq') ?? '') !== undefined &&
    header(message, 'Call-ID') !== undefined &&
    nameAddr(header(message, 'From') ?? '') !== undefined &&
    nameAddr(header(message, 'To') ?? '') !== undefined;
  return { ok: false, why, status, ...(answerable && { request: message as SipRequest }) };
}

export function parseCSeq(value: string): { seq: number; method: string } | undefined {
  const match = /^(\d{1,10})\s+([A-Za-z0-9\-.!%*_+`'~]+)$/.exec(value.trim());
  if (!match) return undefined;
  const seq = Number(match[1]);
  if (seq >= 2 ** 31) return undefined;
  return { seq, method: match[2]! };
}

export interface Via {
  transport: string;
  host: string;
  port: number | undefined;
  params: Record<string, string>;
  raw: string;
}

export function parseVia(value: string): Via | undefined {
  const match =
    /^SIP\s*\/\s*2\.0\s*\/\s*([A-Za-z]+)\s+(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9\-.]+)(?:\s*:\s*(\d{1,5}))?\s*(;.*)?$/.exec(
      value.trim(),
    );
  if (!match) return undefined;
  const port = match[3] === undefined ? undefined : Number(match[3]);
  if (port !== undefined && (port < 1 || port > 65_535)) return undefined;
  return { transport: match[1]!.toUpperCase(), host: match[2]!, port, params: parseParams(match[4] ?? ''), raw: value };
}

export function topVia(message: MessageBase): Via | undefined {
  const first = headerValues(message, 'Via')[0];
  return first === undefined ? undefined : parseVia(first);
}

export function parseParams(text: string): Record<string, string> {
  const params: Record<string, string> = {};
  for (const part of text.split(';')) {
    const trimmed = part.trim();
    if (!trimmed) continue;
    const eq = trimmed.indexOf('=');
    const key = (eq < 0 ? trimmed : trimmed.slice(0, eq)).trim().toLowerCase();
    params[key] = eq < 0 ? '' : trimmed.slice(eq + 1).trim();
  }
  return params;
}

export interface NameAddr {
  displayName: string | undefined;
  uri: string;
  params: Record<string, string>;
}

/** `"Name" <sip:user@host>;tag=x` or `sip:user@host;tag=x` (RFC 3261 §20.10). */
export function nameAddr(value: string): NameAddr | undefined {
  const text = value.trim();
  const open = text.indexOf('<');
  if (open >= 0) {
    const close = text.indexOf('>', open);
    if (close < 0) return undefined;
    const display = text
      .slice(0, open)
      .trim()
      .replace(/^"(.*)"$/, '$1');
    const uri = text.slice(open + 1, close).trim();
    if (!/^[a-zA-Z][a-zA-Z0-9+\-.]*:\S+$/.test(uri)) return undefined;
    return { displayName: display || undefined, uri, params: parseParams(text.slice(close + 1)) };
  }
  const semi = text.indexOf(';');
  const uri = semi < 0 ? text : text.slice(0, semi);
  if (!/^[a-zA-Z][a-zA-Z0-9+\-.]*:\S+$/.test(uri)) return undefined;
  return { displayName: undefined, uri, params: parseParams(semi < 0 ? '' : text.slice(semi)) };
}

export function tagOf(value: string | undefined): string | undefined {
  return value === undefined ? undefined : nameAddr(value)?.params.tag || undefined;
}

export interface SipUri {
  scheme: string;
  user: string | undefined;
  host: string;
  port: number | undefined;
  params: Record<string, string>;
}

export function parseUri(uri: string): SipUri | undefined {
  const match = /^(sips?):(?:([^@;]+)@)?(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9\-.]+)(?::(\d{1,5}))?(;[^?]*)?(\?.*)?$/i.exec(
    uri,
  );
  if (!match) return undefined;
  const user = match[2] === undefined ? undefined : decodeUser(match[2].split(':')[0]!);
  return {
    scheme: match[1]!.toLowerCase(),
    user,
    host: match[3]!,
    port: match[4] === undefined ? undefined : Number(match[4]),
    params: parseParams(match[5] ?? ''),
  };
}

function decodeUser(user: string): string {
  try {
    return decodeURIComponent(user);
  } catch {
    return user;
  }
}

/** Writes a message; Content-Length is always set from the body. */
export function serialize(message: SipMessage): Buffer {
  const start =
    message.kind === 'request'
      ? `${message.method} ${message.uri} SIP/2.0`
      : `SIP/2.0 ${message.status} ${message.reason}`;
  const lines = [start];
  for (const [name, value] of message.headers) if (name !== 'Content-Length') lines.push(`${name}: ${value}`);
  lines.push(`Content-Length: ${message.body.length}`);
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), message.body]);
}

const REASONS: Record<number, string> = {
  100: 'Trying',
  180: 'Ringing',
  183: 'Session Progress',
  200: 'OK',
  202: 'Accepted',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  407: 'Proxy Authentication Required',
  408: 'Request Timeout',
  415: 'Unsupported Media Type',
  480: 'Temporarily Unavailable',
  481: 'Call/Transaction Does Not Exist',
  482: 'Loop Detected',
  483: 'Too Many Hops',
  486: 'Busy Here',
  487: 'Request Terminated',
  488: 'Not Acceptable Here',
  491: 'Request Pending',
  500: 'Server Internal Error',
  501: 'Not Implemented',
  503: 'Service Unavailable',
  505: 'Version Not Supported',
  603: 'Decline',
};

export function reasonPhrase(status: number): string {
  return REASONS[status] ?? (status < 300 ? 'OK' : 'Error');
}

/**
 * A response to `request` (RFC 3261 §8.2.6): Via, From, Call-ID and CSeq copied, To copied with `toTag` added
 * when it has none.
 */
export function responseTo(
  request: SipRequest,
  status: number,
  options: { reason?: string; toTag?: string; headers?: HeaderList; body?: Buffer } = {},
): SipResponse {
  const copied: HeaderList = [];
  for (const name of ['Via', 'From', 'To', 'Call-ID', 'CSeq'] as const) {
    for (const value of headers(request, name)) {
      if (name === 'To' && options.toTag && !tagOf(value) && status > 100)
        copied.push([name, `${value};tag=${options.toTag}`]);
      else copied.push([name, value]);
    }
  }
  if (status >= 180 && status < 300)
    for (const value of headers(request, 'Record-Route')) copied.push(['Record-Route', value]);
  return {
    kind: 'response',
    status,
    reason: options.reason ?? reasonPhrase(status),
    headers: [...copied, ...(options.headers ?? [])],
    body: options.body ?? Buffer.alloc(0),
  };
}
