/**
 * POST /webhooks/payments/razorpay: the payment processor's webhook, outside /api/v1 and without an API key. The
 * request's credential is its X-Razorpay-Signature, an HMAC of the exact bytes sent, so this route reads the body
 * raw (a re-serialised JSON would not match) and hands the bytes to the payment service, which checks the signature
 * before reading anything (payments/payment-webhooks.ts).
 */
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { Envelope, errors } from '../../http/schemas.ts';
import { ok } from '../../http/envelope.ts';
import { EVENT_ID_HEADER, SIGNATURE_HEADER } from '../../integrations/payments/razorpay.ts';
import type { PaymentSetup } from '../../payments/payment-setup.ts';
import { receivePaymentWebhook } from '../../payments/payment-webhooks.ts';

/** Processor events are a few kilobytes; 256 KiB leaves room and refuses floods. */
const WEBHOOK_BODY_LIMIT_BYTES = 256 * 1024;

export default async function paymentWebhookRoutes(app: FastifyInstance, options: { setup: PaymentSetup }) {
  // In this plugin only: JSON arrives as the raw bytes the signature covers.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

  app.post<{ Body: Buffer }>(
    '/webhooks/payments/razorpay',
    {
      bodyLimit: WEBHOOK_BODY_LIMIT_BYTES,
      config: { auth: 'public' },
      schema: {
        tags: ['payments'],
        summary: "The payment processor's webhook (Razorpay events, signed)",
        description:
          'Razorpay posts payment.captured, order.paid and payment.failed here, signed with X-Razorpay-Signature ' +
          '(hex HMAC-SHA256 of the raw body under PARLEY_PAYMENTS_WEBHOOK_SECRET). A captured payment credits the ' +
          'wallet once, however often it is delivered. An unsigned or mis-signed request changes nothing and is ' +
          'answered 400. The outcome names what the delivery did.',
        headers: Type.Object({
          [SIGNATURE_HEADER]: Type.Optional(Type.String({ maxLength: 200 })),
          [EVENT_ID_HEADER]: Type.Optional(Type.String({ maxLength: 200 })),
        }),
        response: {
          200: Envelope(
            Type.Object({
              outcome: Type.String({
                description: 'credited, duplicate, amount_mismatch, unknown_order, failed or ignored',
              }),
            }),
          ),
          400: Type.Ref('ErrorBody'),
          ...errors(503),
        },
      },
    },
    async (request) => {
      const rawBody = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const header = (name: string) => {
        const value = request.headers[name];
        return typeof value === 'string' ? value : undefined;
      };
      const outcome = await receivePaymentWebhook(options.setup, {
        rawBody,
        signature: header(SIGNATURE_HEADER),
        eventId: header(EVENT_ID_HEADER),
      });
      return ok({ outcome });
    },
  );
}
