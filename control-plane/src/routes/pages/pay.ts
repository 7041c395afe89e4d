/**
 * The hosted payment page a checkoutUrl opens, GET /pay/{paymentId}/{token} (or the earlier /pay/{paymentId}?token=…,
 * pay-link.ts): names the amount and who it is for,
 * and opens the processor's checkout for the payment's order with the publishable key. Paying here changes nothing
 * by itself: the processor's signed webhook credits the wallet. Plain HTML with a few lines of script.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { Type } from '@sinclair/typebox';
import { CHECKOUT_SCRIPT_URL } from '../../integrations/payments/razorpay.ts';
import { readCheckoutPage, type CheckoutPage } from '../../payments/checkout-page.ts';
import type { PaymentSetup } from '../../payments/payment-setup.ts';

const Token = Type.String({ minLength: 1, maxLength: 300 });

export default async function payPageRoutes(app: FastifyInstance, options: { setup: PaymentSetup }) {
  const config = { auth: 'public' } as const;
  app.get<{ Params: { paymentId: string; token: string } }>(
    '/pay/:paymentId/:token',
    {
      schema: { hide: true, params: Type.Object({ paymentId: Type.String({ maxLength: 64 }), token: Token }) },
      config,
    },
    (request, reply) => servePage(options.setup, request.params.paymentId, request.params.token, reply),
  );
  app.get<{ Params: { paymentId: string }; Querystring: { token: string } }>(
    '/pay/:paymentId',
    {
      schema: {
        hide: true,
        params: Type.Object({ paymentId: Type.String({ maxLength: 64 }) }),
        querystring: Type.Object({ token: Token }),
      },
      config,
    },
    (request, reply) => servePage(options.setup, request.params.paymentId, request.query.token, reply),
  );
}

async function servePage(setup: PaymentSetup, paymentId: string, token: string, reply: FastifyReply) {
  const page = await readCheckoutPage(setup, paymentId, token);
  const checkout = new URL(CHECKOUT_SCRIPT_URL).origin;
  return reply
    .type('text/html; charset=utf-8')
    .header(
      'content-security-policy',
      `default-src 'none'; script-src 'unsafe-inline' ${checkout}; frame-src ${checkout} https://api.razorpay.com; ` +
        `style-src 'unsafe-inline'; img-src ${checkout} data:; connect-src ${checkout} https://lumberjack.razorpay.com`,
    )
    .header('cache-control', 'no-store')
    .send(html(page));
}

function html(page: CheckoutPage): string {
  const amount = `${(page.amountMinor / 100).toFixed(2)} ${page.currency}`;
  // Everything placed in the page goes through JSON.stringify (script) or escapeHtml (markup).
  const options = {
    key: page.pgKeyId,
    order_id: page.pgOrderId,
    amount: page.amountMinor,
    currency: page.currency,
    name: 'Parley',
    description: `Wallet top-up for ${page.organisationName}`,
  };
  const pending = page.status === 'PENDING' || page.status === 'FAILED';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Parley payment</title>
<style>body{font:16px system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#1d1d1f}
button{font:inherit;padding:.6rem 1.2rem;border-radius:.4rem;border:0;background:#2450d8;color:#fff;cursor:pointer}
.muted{color:#666}</style></head>
<body><h1>Parley</h1>
<p>Top-up for <strong>${escapeHtml(page.organisationName)}</strong>: <strong id="amount">${escapeHtml(amount)}</strong></p>
<p id="state" class="muted">${pending ? 'Pay securely with the payment processor.' : `This payment is ${page.status.toLowerCase()}.`}</p>
${pending ? '<button id="pay">Pay now</button>' : ''}
<script src="${CHECKOUT_SCRIPT_URL}"></script>
<script>
const options = ${JSON.stringify(options).replace(/</g, '\\u003c')};
const returnUrl = ${JSON.stringify(page.returnUrl).replace(/</g, '\\u003c')};
const state = document.getElementById('state');
const button = document.getElementById('pay');
options.handler = () => {
  state.textContent = 'Payment received. Your wallet is credited as soon as the processor confirms it.';
  if (button) button.remove();
  if (returnUrl) setTimeout(() => { location.href = returnUrl; }, 2000);
};
if (button) button.onclick = () => {
  if (typeof Razorpay !== 'function') { state.textContent = 'The payment form could not be loaded. Try again later.'; return; }
  new Razorpay(options).open();
};
</script></body></html>`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
