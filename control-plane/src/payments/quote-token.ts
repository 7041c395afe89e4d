/**
 * The quoteId of a top-up quote: the quote's terms, signed with a key of the key ring for this purpose alone, so
 * create-order can tell a quote Parley issued from one edited by the client, and whose organisation it is, without
 * trusting anything the client echoes back. Form: `<base64url JSON terms>.<key id>.<HMAC>`.
 */
import type { KeyRing } from '../secrets/key-ring.ts';

const PURPOSE = 'topup-quote';
/** Bounds the work a forged token can cause; a real one is about 250 characters. */
const MAX_TOKEN_LENGTH = 1000;

export interface QuoteTerms {
  /** The topup_quotes row. */
  quoteId: string;
  organisationId: string;
  billingCountry: string;
  walletCreditMinor: number;
  walletCurrency: string;
  walletCreditUsdMinor: number;
  totalMinor: number;
  chargeCurrency: string;
  /** Epoch milliseconds. */
  expiresAt: number;
}

export function signQuote(keyRing: KeyRing, terms: QuoteTerms): string {
  const body = Buffer.from(JSON.stringify(terms), 'utf8').toString('base64url');
  return `${body}.${keyRing.sign(PURPOSE, body)}`;
}

/** The terms of a token this key ring signed; undefined for anything else. */
export function readQuote(keyRing: KeyRing, token: string): QuoteTerms | undefined {
  if (token.length > MAX_TOKEN_LENGTH) return undefined;
  const dot = token.indexOf('.');
  if (dot <= 0) return undefined;
  const body = token.slice(0, dot);
  if (!keyRing.verify(PURPOSE, body, token.slice(dot + 1))) return undefined;
  try {
    const terms = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as QuoteTerms;
    return typeof terms.quoteId === 'string' && typeof terms.expiresAt === 'number' ? terms : undefined;
  } catch {
    return undefined;
  }
}
