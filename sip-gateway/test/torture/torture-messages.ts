/**
 * A torture set in the manner of RFC 4475, written for these tests: messages that are malformed, or valid but
 * odd, each with what the gateway must do with it — a status (400 for malformed requests it can name, or the
 * specific refusal RFC 3261 gives) or `drop` (a request it cannot answer: no usable Via, Call-ID, CSeq, From or To;
 * or not a request at all). `{id}` in a message is replaced by a per-message Call-ID and `{port}` by the sender's.
 */

export interface TortureCase {
  name: string;
  message: string | Buffer;
  expect: number | 'drop';
}

const SDP = 'v=0\r\no=t 1 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio 4000 RTP/AVP 0\r\n';

function msg(
  start: string,
  headers: string[],
  body = '',
  contentLength: string | undefined = String(Buffer.byteLength(body)),
): string {
  return [
    start,
    ...headers,
    ...(contentLength === undefined ? [] : [`Content-Length: ${contentLength}`]),
    '',
    body,
  ].join('\r\n');
}

const VIA = 'Via: SIP/2.0/UDP 127.0.0.1:{port};branch=z9hG4bK{id}';
const FROM = 'From: <sip:caller@127.0.0.1>;tag=t{id}';
const TO = 'To: <sip:+14155550123@127.0.0.1>';
const CALL_ID = 'Call-ID: {id}@torture';
const MF = 'Max-Forwards: 70';
const base = (method: string, cseq = `1 ${method}`) => [VIA, MF, FROM, TO, CALL_ID, `CSeq: ${cseq}`];
const without = (list: string[], prefix: string) => list.filter((h) => !h.startsWith(prefix));
const options = (headers = base('OPTIONS')) => msg('OPTIONS sip:ping@127.0.0.1 SIP/2.0', headers);
const invite = (headers: string[], body: string, type = 'application/sdp') =>
  msg('INVITE sip:+14155550123@127.0.0.1 SIP/2.0', [...headers, ...(type ? [`Content-Type: ${type}`] : [])], body);

export const TORTURE: TortureCase[] = [
  // Missing or broken headers that name the transaction: nothing to answer to.
  { name: 'no Call-ID', message: options(without(base('OPTIONS'), 'Call-ID')), expect: 'drop' },
  { name: 'no CSeq', message: options(without(base('OPTIONS'), 'CSeq')), expect: 'drop' },
  { name: 'no Via', message: options(without(base('OPTIONS'), 'Via')), expect: 'drop' },
  { name: 'no From', message: options(without(base('OPTIONS'), 'From')), expect: 'drop' },
  { name: 'no To', message: options(without(base('OPTIONS'), 'To')), expect: 'drop' },
  { name: 'CSeq not a number', message: options(base('OPTIONS', 'abc OPTIONS')), expect: 'drop' },
  { name: 'CSeq negative', message: options(base('OPTIONS', '-1 OPTIONS')), expect: 'drop' },
  { name: 'CSeq of 2^31', message: options(base('OPTIONS', '2147483648 OPTIONS')), expect: 'drop' },
  {
    name: 'Via with port 99999',
    message: options([...without(base('OPTIONS'), 'Via'), 'Via: SIP/2.0/UDP 127.0.0.1:99999;branch=z9hG4bKx{id}']),
    expect: 'drop',
  },
  {
    name: 'Via without a host',
    message: options([...without(base('OPTIONS'), 'Via'), 'Via: SIP/2.0/UDP ;branch=z9hG4bK{id}']),
    expect: 'drop',
  },
  {
    name: 'To with an unclosed <',
    message: options([...without(base('OPTIONS'), 'To'), 'To: <sip:+1415@127.0.0.1']),
    expect: 'drop',
  },
  {
    name: 'From without a URI',
    message: options([...without(base('OPTIONS'), 'From'), 'From: "Nobody";tag=1']),
    expect: 'drop',
  },
  // Not SIP requests at all.
  { name: 'empty datagram', message: Buffer.alloc(0), expect: 'drop' },
  { name: 'only CRLFs (keep-alive)', message: '\r\n\r\n\r\n\r\n', expect: 'drop' },
  {
    name: 'binary garbage',
    message: Buffer.from(Array.from({ length: 600 }, (_, i) => (i * 37 + 11) % 256)),
    expect: 'drop',
  },
  { name: 'HTTP request', message: 'GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n', expect: 'drop' },
  {
    name: 'start line with tabs',
    message: msg('OPTIONS\tsip:ping@127.0.0.1\tSIP/2.0', base('OPTIONS')),
    expect: 'drop',
  },
  {
    name: 'start line with two spaces',
    message: msg('OPTIONS  sip:ping@127.0.0.1 SIP/2.0', base('OPTIONS')),
    expect: 'drop',
  },
  { name: 'bare LF line ends', message: options().replace(/\r\n/g, '\n'), expect: 'drop' },
  {
    name: 'no blank line after the headers',
    message: `OPTIONS sip:ping@127.0.0.1 SIP/2.0\r\n${base('OPTIONS').join('\r\n')}`,
    expect: 'drop',
  },
  { name: 'NUL in a header', message: options([...base('OPTIONS'), 'X-Nul: a\0b']), expect: 'drop' },
  {
    name: 'a header line of 9000 characters',
    message: options([...base('OPTIONS'), `X-Long: ${'a'.repeat(9_000)}`]),
    expect: 'drop',
  },
  {
    name: '200 header lines',
    message: options([...base('OPTIONS'), ...Array.from({ length: 200 }, (_, i) => `X-H${i}: ${i}`)]),
    expect: 'drop',
  },
  { name: 'a response nobody asked for', message: msg('SIP/2.0 200 OK', base('OPTIONS')), expect: 'drop' },
  { name: 'a response with status 999', message: msg('SIP/2.0 999 Huh', base('OPTIONS')), expect: 'drop' },
  { name: 'an ACK for no transaction', message: msg('ACK sip:x@127.0.0.1 SIP/2.0', base('ACK')), expect: 'drop' },
  // Malformed, but answerable: 400.
  { name: 'CSeq method not the request method', message: options(base('OPTIONS', '1 INVITE')), expect: 400 },
  {
    name: 'Content-Length beyond the body',
    message: msg('OPTIONS sip:ping@127.0.0.1 SIP/2.0', base('OPTIONS'), 'abc', '300'),
    expect: 400,
  },
  {
    name: 'Content-Length negative',
    message: msg('OPTIONS sip:ping@127.0.0.1 SIP/2.0', base('OPTIONS'), '', '-5'),
    expect: 400,
  },
  {
    name: 'Content-Length not a number',
    message: msg('OPTIONS sip:ping@127.0.0.1 SIP/2.0', base('OPTIONS'), '', 'ten'),
    expect: 400,
  },
  {
    name: 'Content-Length of 10 digits',
    message: msg('OPTIONS sip:ping@127.0.0.1 SIP/2.0', base('OPTIONS'), '', '9999999999'),
    expect: 400,
  },
  { name: 'Request-URI without a scheme', message: msg('OPTIONS 127.0.0.1 SIP/2.0', base('OPTIONS')), expect: 400 },
  {
    name: 'a header line without a colon',
    message: options([...base('OPTIONS'), 'This is not a header']),
    expect: 400,
  },
  { name: 'a header name with a space', message: options([...base('OPTIONS'), 'Bad Name: x']), expect: 400 },
  { name: 'two Call-IDs', message: options([...base('OPTIONS'), 'Call-ID: second@torture']), expect: 400 },
  {
    name: 'Max-Forwards not a number',
    message: options([...without(base('OPTIONS'), 'Max-Forwards'), 'Max-Forwards: many']),
    expect: 400,
  },
  // Answered with the refusal RFC 3261 gives.
  { name: 'SIP version 7.0', message: msg('OPTIONS sip:ping@127.0.0.1 SIP/7.0', base('OPTIONS')), expect: 505 },
  {
    name: 'Max-Forwards 0',
    message: options([...without(base('OPTIONS'), 'Max-Forwards'), 'Max-Forwards: 0']),
    expect: 483,
  },
  {
    name: 'Require of an unknown extension',
    message: options([...base('OPTIONS'), 'Require: nonsense-ext']),
    expect: 420,
  },
  { name: 'an unknown method', message: msg('FOOBAR sip:x@127.0.0.1 SIP/2.0', base('FOOBAR')), expect: 501 },
  {
    name: 'a lower-case method (methods are case-sensitive)',
    message: msg('options sip:x@127.0.0.1 SIP/2.0', base('options')),
    expect: 501,
  },
  { name: 'REGISTER (not a registrar)', message: msg('REGISTER sip:127.0.0.1 SIP/2.0', base('REGISTER')), expect: 405 },
  { name: 'CANCEL of no transaction', message: msg('CANCEL sip:x@127.0.0.1 SIP/2.0', base('CANCEL')), expect: 481 },
  {
    name: 'BYE outside any dialog',
    message: msg('BYE sip:x@127.0.0.1 SIP/2.0', [...without(base('BYE'), 'To'), `${TO};tag=gone`]),
    expect: 481,
  },
  { name: 'INVITE with a text/plain body', message: invite(base('INVITE'), 'hello', 'text/plain'), expect: 415 },
  {
    name: 'INVITE with SDP that has no m= line',
    message: invite(base('INVITE'), 'v=0\r\ns=-\r\nc=IN IP4 127.0.0.1\r\n'),
    expect: 488,
  },
  {
    name: 'INVITE with an SDP port of 99999',
    message: invite(base('INVITE'), SDP.replace('4000', '99999')),
    expect: 488,
  },
  {
    name: 'INVITE offering only video',
    message: invite(base('INVITE'), SDP.replace('m=audio 4000 RTP/AVP 0', 'm=video 4000 RTP/AVP 96')),
    expect: 488,
  },
  // Valid but odd: answered as any OPTIONS is.
  {
    name: 'folded header lines',
    message: options([
      ...without(base('OPTIONS'), 'From'),
      'From: <sip:caller@127.0.0.1>',
      '  ;tag=t{id}',
      'Subject: one',
      '\ttwo',
    ]),
    expect: 200,
  },
  {
    name: 'compact header names',
    message: msg('OPTIONS sip:ping@127.0.0.1 SIP/2.0', [
      'v: SIP/2.0/UDP 127.0.0.1:{port};branch=z9hG4bK{id}',
      'f: <sip:c@127.0.0.1>;tag=t{id}',
      't: <sip:p@127.0.0.1>',
      'i: {id}@torture',
      'CSeq: 1 OPTIONS',
    ]),
    expect: 200,
  },
  {
    name: 'header names in odd case',
    message: options(base('OPTIONS').map((h) => h.replace(/^Call-ID/, 'cALL-iD').replace(/^CSeq/, 'cseq'))),
    expect: 200,
  },
  {
    name: 'escaped characters in the Request-URI',
    message: msg('OPTIONS sip:%61lice%20x@127.0.0.1;transport=udp SIP/2.0', base('OPTIONS')),
    expect: 200,
  },
  {
    name: 'a display name with escaped quotes',
    message: options([
      ...without(base('OPTIONS'), 'From'),
      'From: "Bob \\"the\\" Builder" <sip:bob@127.0.0.1>;tag=t{id}',
    ]),
    expect: 200,
  },
  {
    name: 'empty parameters',
    message: options([...without(base('OPTIONS'), 'From'), 'From: <sip:c@127.0.0.1>;tag=t{id};;;']),
    expect: 200,
  },
  {
    name: 'an unknown Via transport',
    message: options([...without(base('OPTIONS'), 'Via'), 'Via: SIP/2.0/XYZ 127.0.0.1:{port};branch=z9hG4bK{id}']),
    expect: 200,
  },
  {
    name: 'an IPv6 reference in a second Via',
    message: options([...base('OPTIONS'), 'Via: SIP/2.0/UDP [2001:db8::9]:5060;branch=z9hG4bKv6']),
    expect: 200,
  },
  {
    name: 'a body without Content-Length (UDP)',
    message: msg(
      'OPTIONS sip:ping@127.0.0.1 SIP/2.0',
      [...base('OPTIONS'), 'Content-Type: text/plain'],
      'hello',
      undefined,
    ),
    expect: 200,
  },
  {
    name: 'Content-Length shorter than the body (UDP: the rest is cut)',
    message: msg('OPTIONS sip:ping@127.0.0.1 SIP/2.0', base('OPTIONS'), 'hello world', '5'),
    expect: 200,
  },
  {
    name: 'spaces around the header colon',
    message: options(base('OPTIONS').map((h) => h.replace(': ', '   :   '))),
    expect: 200,
  },
  {
    name: 'a 56 kB datagram of headers',
    message: options([...base('OPTIONS'), ...Array.from({ length: 80 }, (_, i) => `X-B${i}: ${'b'.repeat(700)}`)]),
    expect: 200,
  },
  {
    name: 'an old RFC 2543 branch',
    message: options([...without(base('OPTIONS'), 'Via'), 'Via: SIP/2.0/UDP 127.0.0.1:{port};branch=old{id}']),
    expect: 200,
  },
];
