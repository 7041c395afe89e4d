/**
 * Our webhook signature agrees with the processor's own library (the `razorpay` npm package, a devDependency kept
 * for this check): what we sign, Razorpay.validateWebhookSignature accepts, and what it accepts, we accept — over
 * the exact bytes, so a re-serialised body or another secret fails on both sides.
 */
import Razorpay from 'razorpay';
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { RazorpayClient, readPaymentEvent, webhookSignature } from './razorpay.ts';

const SECRET = 'whsec_cross_check';
const client = new RazorpayClient('http://127.0.0.1:9', {
  keyId: 'rzp_test_x',
  keySecret: 'ks',
  webhookSecret: SECRET,
});
const body = JSON.stringify({
  entity: 'event',
  account_id: 'acc_BFQ7uQEaa7j2z7',
  event: 'payment.captured',
  contains: ['payment'],
  payload: {
    payment: {
      entity: {
        id: 'pay_DESlfW9H8K9uqM',
        entity: 'payment',
        amount: 118000,
        currency: 'INR',
        status: 'captured',
        order_id: 'order_DESlLckIVRkHWj',
        description: 'Top-up ₹ 1 000 — “quoted”',
      },
    },
  },
  created_at: 1567674606,
});

describe('webhook signatures against the razorpay library', () => {
  it('our signature is accepted by Razorpay.validateWebhookSignature, and not for another body or secret', () => {
    const ours = webhookSignature(Buffer.from(body), SECRET);
    expect(Razorpay.validateWebhookSignature(body, ours, SECRET)).toBe(true);
    expect(Razorpay.validateWebhookSignature(`${body} `, ours, SECRET)).toBe(false);
    expect(Razorpay.validateWebhookSignature(body, ours, `${SECRET}x`)).toBe(false);
  });

  it('a signature the library accepts is accepted by us; a tampered body, signature or a missing one is not', () => {
    // The library only verifies; a signature it accepts is the documented hex HMAC-SHA256, made here independently.
    const theirs = createHmac('sha256', SECRET).update(body).digest('hex');
    expect(Razorpay.validateWebhookSignature(body, theirs, SECRET)).toBe(true);
    expect(client.verifyWebhook(Buffer.from(body), theirs)).toBe(true);
    expect(client.verifyWebhook(Buffer.from(body), theirs.toUpperCase())).toBe(true);
    expect(client.verifyWebhook(Buffer.from(body.replace('118000', '118001')), theirs)).toBe(false);
    expect(client.verifyWebhook(Buffer.from(JSON.stringify(JSON.parse(body), null, 1)), theirs)).toBe(false);
    const flipped = `${theirs.slice(0, 63)}${theirs.endsWith('0') ? '1' : '0'}`;
    expect(client.verifyWebhook(Buffer.from(body), flipped)).toBe(false);
    expect(client.verifyWebhook(Buffer.from(body), undefined)).toBe(false);
    expect(client.verifyWebhook(Buffer.from(body), 'not-hex')).toBe(false);
  });
});

describe('reading webhook events', () => {
  it('reads payment.captured, order.paid and payment.failed, and ignores what lacks the fields', () => {
    expect(readPaymentEvent(JSON.parse(body))).toEqual({
      kind: 'captured',
      type: 'payment.captured',
      orderId: 'order_DESlLckIVRkHWj',
      paymentId: 'pay_DESlfW9H8K9uqM',
      amountMinor: 118000,
      currency: 'INR',
    });
    const orderPaid = {
      event: 'order.paid',
      payload: {
        payment: { entity: { id: 'pay_1', order_id: 'order_1', amount: 1000, currency: 'USD', status: 'captured' } },
        order: { entity: { id: 'order_1', amount: 1000, amount_paid: 1000, currency: 'USD', status: 'paid' } },
      },
    };
    expect(readPaymentEvent(orderPaid)).toMatchObject({ kind: 'captured', orderId: 'order_1', amountMinor: 1000 });
    expect(
      readPaymentEvent({
        event: 'payment.failed',
        payload: { payment: { entity: { id: 'pay_2', order_id: 'order_2', error_description: 'declined' } } },
      }),
    ).toEqual({ kind: 'failed', type: 'payment.failed', orderId: 'order_2', paymentId: 'pay_2', reason: 'declined' });
    expect(readPaymentEvent({ event: 'payment.captured', payload: { payment: { entity: { id: 'pay_3' } } } })).toEqual({
      kind: 'ignored',
      type: 'payment.captured',
    });
    expect(readPaymentEvent({ event: 'refund.created' })).toEqual({ kind: 'ignored', type: 'refund.created' });
    expect(readPaymentEvent('nonsense')).toEqual({ kind: 'ignored', type: '' });
  });
});
