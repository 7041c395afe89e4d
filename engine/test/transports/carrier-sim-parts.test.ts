/**
 * The carrier simulator's own parts, checked against the carriers' published facts where there are any: Twilio's
 * documented signature example, the answer documents as each carrier reads them, and real-time playout with marks.
 */
import { describe, expect, it } from 'vitest';
import {
  AnswerError,
  parseXml,
  plivoNonce,
  plivoStream,
  plivoV3Signature,
  twilioSignature,
  twimlStream,
} from '../fakes/carrier-sim/index.ts';
import { Playout } from '../fakes/carrier-sim/playout.ts';

describe('carrier webhook signatures', () => {
  it('carrier-b: reproduces Twilio’s documented example signature', () => {
    const params = {
      CallSid: 'CA1234567890ABCDE',
      Caller: '+14158675309',
      Digits: '1234',
      From: '+14158675309',
      To: '+18005551212',
    };
    expect(twilioSignature('12345', 'https://mycompany.com/myapp.php?foo=1&bar=2', params)).toBe(
      'RSOYDt4T1cUTdK1PDd93/VVr8B8=',
    );
    expect(
      twilioSignature('12345', 'https://mycompany.com/myapp.php?foo=1&bar=2', { ...params, Digits: '9999' }),
    ).not.toBe('RSOYDt4T1cUTdK1PDd93/VVr8B8=');
  });

  it('carrier-a: signs URL, sorted parameters and nonce, so any change shows', () => {
    const nonce = plivoNonce();
    expect(nonce).toMatch(/^\d{20}$/);
    const signature = plivoV3Signature('token', 'POST', 'https://app.test/answer?b=2&a=1', nonce, {
      To: '+2',
      From: '+1',
    });
    expect(signature).toBe(
      plivoV3Signature('token', 'POST', 'https://app.test/answer?a=1&b=2', nonce, { From: '+1', To: '+2' }),
    );
    expect(signature).not.toBe(
      plivoV3Signature('token', 'POST', 'https://app.test/answer?a=1&b=2', nonce, { From: '+1', To: '+3' }),
    );
    expect(signature).not.toBe(
      plivoV3Signature('token', 'POST', 'https://app.test/answer?a=1&b=2', plivoNonce(), { From: '+1', To: '+2' }),
    );
    expect(signature).not.toBe(
      plivoV3Signature('other', 'POST', 'https://app.test/answer?a=1&b=2', nonce, { From: '+1', To: '+2' }),
    );
  });
});

describe('answer documents as the carriers read them', () => {
  it('carrier-b: finds <Connect><Stream> with its parameters, entities decoded', () => {
    const xml = `<?xml version="1.0" encoding="UTF-8"?>
      <!-- the agent -->
      <Response>
        <Connect>
          <Stream url="wss://media.example.com/media/carrier-b/abc.def">
            <Parameter name="lead" value="A &amp; B"/>
            <Parameter name='empty'/>
          </Stream>
        </Connect>
      </Response>`;
    expect(twimlStream(xml)).toEqual({
      url: 'wss://media.example.com/media/carrier-b/abc.def',
      parameters: { lead: 'A & B', empty: '' },
    });
  });

  it('carrier-b: refuses a one-way stream, a query string in the URL, and a document without a stream', () => {
    expect(() => twimlStream('<Response><Start><Stream url="wss://x/y"/></Start></Response>')).toThrow(/one-way/);
    expect(() => twimlStream('<Response><Connect><Stream url="wss://x/y?token=1"/></Connect></Response>')).toThrow(
      /query string/,
    );
    expect(() => twimlStream('<Response><Say>Hello</Say></Response>')).toThrow(AnswerError);
    expect(() => twimlStream('<Response><Connect>')).toThrow(AnswerError);
  });

  it('carrier-a: finds a bidirectional <Stream> and its attributes', () => {
    const xml =
      '<Response><Stream bidirectional="true" keepCallAlive="true" contentType="audio/x-l16;rate=16000" extraHeaders="a=1,b=2" statusCallbackUrl="https://app.test/s">\n  wss://m.test/media/carrier-a/t\n</Stream></Response>';
    expect(plivoStream(xml)).toEqual({
      url: 'wss://m.test/media/carrier-a/t',
      parameters: { a: '1', b: '2' },
      contentType: 'audio/x-l16;rate=16000',
      statusCallbackUrl: 'https://app.test/s',
      statusCallbackMethod: undefined,
      keepCallAlive: true,
    });
    expect(() => plivoStream('<Response><Stream>wss://m.test/x</Stream></Response>')).toThrow(/not bidirectional/);
    expect(() => plivoStream('<Response><Stream bidirectional="true">https://m.test/x</Stream></Response>')).toThrow(
      /websocket URL/,
    );
  });

  it('reads well-formed XML and refuses what is not', () => {
    expect(parseXml('<a x="1"><b/>text<c y=\'2\'>&lt;&#65;&#x42;</c></a>')).toEqual({
      name: 'a',
      attributes: { x: '1' },
      text: 'text',
      children: [
        { name: 'b', attributes: {}, children: [], text: '' },
        { name: 'c', attributes: { y: '2' }, children: [], text: '<AB' },
      ],
    });
    for (const bad of ['', '<a>', '<a></b>', '<a x=1/>', '<a/><b/>', 'text<a/>'])
      expect(() => parseXml(bad), bad).toThrow(AnswerError);
  });
});

describe('the simulated carrier’s playout', () => {
  it('plays at real time, reaches a mark when the audio before it has played, and drops the rest on a clear', () => {
    const playout = new Playout();
    playout.enqueue(new Int16Array(300).fill(1));
    playout.mark('first');
    playout.enqueue(new Int16Array(100).fill(2));
    playout.mark('second');
    expect(playout.tick(160)).toMatchObject({ marks: [] });
    const second = playout.tick(160);
    expect(second.marks).toEqual(['first']);
    expect(second.played.length).toBe(160);
    expect(playout.backlog).toBe(80);
    expect(playout.clear()).toEqual(['second']);
    expect(playout.tick(160)).toEqual({ played: new Int16Array(0), marks: [] });
    playout.mark('idle');
    expect(playout.tick(160).marks).toEqual(['idle']);
  });
});
