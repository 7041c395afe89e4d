/**
 * The hosted payment page's link, `<public URL>/pay/<paymentId>/<token>`: the token is the link's expiry signed with
 * the key ring for this purpose, so only Parley can hand out a page that opens a payment's checkout, and a link
 * stops working after a day (the page shows the amount and the payer's name; a leaked link should not last).
 *
 * The token sits in the path, not in a `token` query parameter: the link is a capability made to be opened by the
 * payer — and handed to them by an AI host through the MCP tool account_topup — not a credential of the API, while
 * credential-shaped query parameters are exactly what MCP results and logs redact (mcp/src/tools/scrub.ts). Links of
 * the earlier `?token=` form stay valid until they lapse.
 */
import type { KeyRing } from '../secrets/key-ring.ts';

const PURPOSE = 'payment-page';
/** A day: long enough to finish paying after a bank's redirect or a lunch break, short enough to go stale. */
export const PAY_LINK_VALIDITY_MS = 24 * 60 * 60 * 1000;

export function payLink(keyRing: KeyRing, publicUrl: string, paymentId: string, now: Date): string {
  const expiresAt = now.getTime() + PAY_LINK_VALIDITY_MS;
  const token = `${expiresAt}.${keyRing.sign(PURPOSE, `${paymentId}.${expiresAt}`)}`;
  return `${publicUrl}/pay/${paymentId}/${encodeURIComponent(token)}`;
}

/** Whether `token` opens `paymentId`'s page now. */
export function payLinkValid(keyRing: KeyRing, paymentId: string, token: string, now: Date): boolean {
  const dot = token.indexOf('.');
  const expiresAt = Number(token.slice(0, dot));
  if (dot <= 0 || !Number.isSafeInteger(expiresAt) || expiresAt < now.getTime()) return false;
  return keyRing.verify(PURPOSE, `${paymentId}.${expiresAt}`, token.slice(dot + 1));
}
