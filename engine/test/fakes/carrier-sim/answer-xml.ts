/**
 * Reading the answer documents a carrier fetches when a call is answered, as the carrier reads them: enough XML for
 * TwiML and Plivo XML (elements, attributes, text, entities, comments, the declaration), then the one instruction
 * a voice agent's answer must hold — a bidirectional media stream.
 *
 * - carrier-b: `<Response><Connect><Stream url="wss://…"><Parameter name="…" value="…"/></Stream></Connect></Response>`.
 *   `<Start><Stream>` is one-way (the agent could not speak); Twilio takes no query string in the stream URL.
 * - carrier-a: `<Response><Stream bidirectional="true" keepCallAlive="true" contentType="…">wss://…</Stream></Response>`.
 */

export interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  /** The element's own text, entities decoded, trimmed. */
  text: string;
}

export class AnswerError extends Error {
  override name = 'AnswerError';
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decode(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#\d+|[a-z]+);/g, (whole, entity: string) => {
    if (entity.startsWith('#x')) return String.fromCodePoint(parseInt(entity.slice(2), 16));
    if (entity.startsWith('#')) return String.fromCodePoint(parseInt(entity.slice(1), 10));
    return ENTITIES[entity] ?? whole;
  });
}

/** The document's root element. Throws AnswerError for text that is not well-formed XML. */
export function parseXml(source: string): XmlElement {
  const text = source.replace(/^\uFEFF/, '');
  let at = 0;
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  const skipMarkup = () => {
    for (;;) {
      const rest = text.slice(at);
      const lead = rest.length - rest.trimStart().length;
      if (text.startsWith('<?', at + lead)) {
        const end = text.indexOf('?>', at + lead);
        if (end < 0) throw new AnswerError('unterminated declaration');
        at = end + 2;
      } else if (text.startsWith('<!--', at + lead)) {
        const end = text.indexOf('-->', at + lead);
        if (end < 0) throw new AnswerError('unterminated comment');
        at = end + 3;
      } else return;
    }
  };
  skipMarkup();
  while (at < text.length) {
    const open = text.indexOf('<', at);
    const chunk = text.slice(at, open < 0 ? text.length : open);
    if (stack.length) stack.at(-1)!.text += decode(chunk);
    else if (chunk.trim()) throw new AnswerError('text outside the root element');
    if (open < 0) break;
    if (text.startsWith('<!--', open)) {
      const end = text.indexOf('-->', open);
      if (end < 0) throw new AnswerError('unterminated comment');
      at = end + 3;
      continue;
    }
    if (text.startsWith('<![CDATA[', open)) {
      const end = text.indexOf(']]>', open);
      if (end < 0 || !stack.length) throw new AnswerError('misplaced CDATA');
      stack.at(-1)!.text += text.slice(open + 9, end);
      at = end + 3;
      continue;
    }
    const close = text.indexOf('>', open);
    if (close < 0) throw new AnswerError('unterminated tag');
    const tag = text.slice(open + 1, close);
    at = close + 1;
    if (tag.startsWith('/')) {
      const name = tag.slice(1).trim();
      const element = stack.pop();
      if (!element || element.name !== name) throw new AnswerError(`unexpected </${name}>`);
      element.text = element.text.trim();
      if (!stack.length) {
        root = element;
        skipMarkup();
        if (text.slice(at).trim()) throw new AnswerError('content after the root element');
        break;
      }
      continue;
    }
    const selfClosing = tag.endsWith('/');
    const body = selfClosing ? tag.slice(0, -1) : tag;
    const nameMatch = /^([A-Za-z_][\w.-]*)/.exec(body);
    if (!nameMatch) throw new AnswerError(`bad tag <${tag}>`);
    const element: XmlElement = { name: nameMatch[1]!, attributes: {}, children: [], text: '' };
    const attributePattern = /\s+([A-Za-z_][\w.:-]*)\s*=\s*("([^"]*)"|'([^']*)')/gy;
    attributePattern.lastIndex = nameMatch[0].length;
    let consumed = nameMatch[0].length;
    for (let match = attributePattern.exec(body); match; match = attributePattern.exec(body)) {
      element.attributes[match[1]!] = decode(match[3] ?? match[4] ?? '');
      consumed = attributePattern.lastIndex;
    }
    if (body.slice(consumed).trim()) throw new AnswerError(`bad attributes in <${tag}>`);
    if (stack.length) stack.at(-1)!.children.push(element);
    else if (root) throw new AnswerError('two root elements');
    if (!selfClosing) stack.push(element);
    else if (!stack.length) {
      root = element;
      skipMarkup();
      if (text.slice(at).trim()) throw new AnswerError('content after the root element');
      break;
    }
  }
  if (stack.length || !root) throw new AnswerError('unclosed element');
  return root;
}

/** The media stream an answer asks for. */
export interface StreamInstruction {
  url: string;
  /** carrier-b <Parameter>s; carrier-a extraHeaders (k=v pairs). */
  parameters: Record<string, string>;
  /** carrier-a's contentType attribute. */
  contentType?: string;
  /** carrier-a: the stream's status callback and its method. */
  statusCallbackUrl?: string;
  statusCallbackMethod?: string;
  keepCallAlive?: boolean;
}

/** The bidirectional stream of a carrier-b TwiML answer. */
export function twimlStream(xml: string): StreamInstruction {
  const root = parseXml(xml);
  if (root.name !== 'Response') throw new AnswerError(`TwiML root is <${root.name}>, not <Response>`);
  for (const verb of root.children) {
    if (verb.name === 'Start' && verb.children.some((c) => c.name === 'Stream'))
      throw new AnswerError('<Start><Stream> is one-way: the agent could not speak');
    if (verb.name !== 'Connect') continue;
    const stream = verb.children.find((c) => c.name === 'Stream');
    if (!stream) continue;
    const url = stream.attributes.url;
    if (!url) throw new AnswerError('<Stream> without url');
    if (!/^wss?:\/\//.test(url)) throw new AnswerError(`<Stream url> must be a websocket URL, not ${url}`);
    if (url.includes('?')) throw new AnswerError('<Stream url> cannot carry a query string (use <Parameter>)');
    const parameters: Record<string, string> = {};
    for (const parameter of stream.children.filter((c) => c.name === 'Parameter')) {
      if (!parameter.attributes.name) throw new AnswerError('<Parameter> without name');
      parameters[parameter.attributes.name] = parameter.attributes.value ?? '';
    }
    return { url, parameters };
  }
  throw new AnswerError('no <Connect><Stream> in the TwiML');
}

/** The bidirectional stream of a carrier-a XML answer. */
export function plivoStream(xml: string): StreamInstruction {
  const root = parseXml(xml);
  if (root.name !== 'Response') throw new AnswerError(`Plivo XML root is <${root.name}>, not <Response>`);
  const stream = root.children.find((c) => c.name === 'Stream');
  if (!stream) throw new AnswerError('no <Stream> in the XML');
  const attributes = stream.attributes;
  if (attributes.bidirectional !== 'true')
    throw new AnswerError('<Stream> is not bidirectional: the agent could not speak');
  if (attributes.audioTrack && attributes.audioTrack !== 'inbound')
    throw new AnswerError('a bidirectional <Stream> takes audioTrack inbound only');
  if (!/^wss?:\/\//.test(stream.text))
    throw new AnswerError(`<Stream> must hold a websocket URL, not "${stream.text}"`);
  const parameters: Record<string, string> = {};
  for (const pair of (attributes.extraHeaders ?? '').split(/[,;]/)) {
    const at = pair.indexOf('=');
    if (at > 0) parameters[pair.slice(0, at).trim()] = pair.slice(at + 1).trim();
  }
  return {
    url: stream.text,
    parameters,
    contentType: attributes.contentType,
    statusCallbackUrl: attributes.statusCallbackUrl,
    statusCallbackMethod: attributes.statusCallbackMethod,
    keepCallAlive: attributes.keepCallAlive === 'true',
  };
}

/** The number a transfer's XML dials: `<Response><Dial>+1…</Dial></Response>` or `<Dial><Number>…</Number></Dial>`. */
export function dialTarget(xml: string): string {
  const root = parseXml(xml);
  if (root.name !== 'Response') throw new AnswerError(`root is <${root.name}>, not <Response>`);
  const dial = root.children.find((c) => c.name === 'Dial');
  if (!dial) throw new AnswerError('no <Dial> in the XML');
  const number = dial.children.find((c) => c.name === 'Number')?.text ?? dial.text;
  if (!/^\+?\d{6,15}$/.test(number)) throw new AnswerError(`<Dial> names no number: "${number}"`);
  return number;
}
