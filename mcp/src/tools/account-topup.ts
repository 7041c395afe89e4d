/**
 * account_topup (spec document 2): money into the organisation's wallet through a checkout the user pays in their
 * browser. Without `confirm` it only prices the top-up (pay-as-you-go: a quote with fee, tax and exchange rate;
 * plan billing: the amount and its tax rule); with `confirm: true` it creates the order and returns the checkout
 * link. Nothing is charged by the tool itself: the wallet is credited when the processor confirms the payment. The
 * REST routes behind it need wallet:write and a key owner who is OWNER or ADMIN of the organisation.
 */
import { z } from 'zod';
import { previewResult } from './confirm.ts';
import { valueResult } from './results.ts';
import { confirmArgument, defineTool, orgArgument, type Tool } from './tool.ts';
import { RestFailure, type ToolContext } from './tool-context.ts';

const SERVICE = 'Billing';

interface Quote {
  walletCredit: { amount: number; currency: string };
  walletCreditUsd: number;
  total: number;
  chargeCurrency: string;
  platformFee: number;
  tax: number;
  taxLabel: string;
  quoteId: string;
  expiresAt: string;
  minimumTopUp: { amountUsd: number; meetsMinimum: boolean };
}

function quote(context: ToolContext, organisationId: string, amount: number): Promise<Quote> {
  return context.call<Quote>(SERVICE, {
    method: 'POST',
    path: '/billing/topup-quote',
    body: { organisationId, amount },
  });
}

const accountTopup = defineTool({
  name: 'account_topup',
  title: 'Top up the wallet',
  description:
    "Put money in the organisation's wallet: the pay-as-you-go wallet (quoted with fee, tax and exchange rate) or, on " +
    'plan billing, the plan wallet. The confirmed call returns a checkout link for the user to pay in their browser; ' +
    'the wallet is credited when the payment is confirmed. Only an OWNER or ADMIN of the organisation may.',
  toolClass: 'destructive',
  confirm: true,
  scopes: ['wallet:write'],
  input: {
    amount: z
      .number()
      .positive()
      .max(10_000_000)
      .describe('What the wallet receives, in major units of its checkout currency (INR in India, else USD), e.g. 25'),
    ...orgArgument,
    ...confirmArgument,
  },
  async run(args, context) {
    const organisationId = context.organisation(args.org_id);
    // The quote route serves pay-as-you-go wallets and says so (billing_model_mismatch) for plan billing: asking it
    // first needs no scope beyond the tool's own.
    const priced = await quote(context, organisationId, args.amount).catch((error: unknown) => {
      if (error instanceof RestFailure && error.code === 'billing_model_mismatch') return undefined;
      throw error;
    });
    if (!priced) return planTopUp(context, organisationId, args.amount, args.confirm === true);
    if (!args.confirm) {
      return previewResult('account_topup', {
        action: `Top up the wallet with ${priced.walletCredit.amount} ${priced.walletCredit.currency}`,
        target: { organisationId, wallet: 'pay-as-you-go wallet' },
        effects: [
          `The user pays ${priced.total} ${priced.chargeCurrency} (fee ${priced.platformFee}, ${priced.taxLabel} ${priced.tax}); the wallet receives ${priced.walletCreditUsd} USD.`,
          priced.minimumTopUp.meetsMinimum
            ? 'A checkout link is created; nothing is charged until the user pays it.'
            : `Below the minimum top-up of ${priced.minimumTopUp.amountUsd} USD: the order would be refused.`,
        ],
      });
    }
    const order = await context.call<{ checkoutUrl: string; paymentId: string; amountMinor: number; currency: string }>(
      SERVICE,
      {
        method: 'POST',
        path: '/payments/create-order',
        body: {
          organisationId,
          amount: priced.walletCredit.amount,
          currency: priced.walletCredit.currency,
          expectedTotal: {
            amount: priced.total,
            currency: priced.chargeCurrency,
            walletCreditUsd: priced.walletCreditUsd,
            quoteId: priced.quoteId,
          },
        },
      },
    );
    return valueResult({
      paymentId: order.paymentId,
      checkoutUrl: order.checkoutUrl,
      amountMinor: order.amountMinor,
      currency: order.currency,
      next: 'Give the user the checkoutUrl to pay in their browser (valid 24 hours).',
    });
  },
});

/** The plan wallet's top-up: priced by the route itself when the checkout is made, so the dry run states the rule. */
async function planTopUp(context: ToolContext, organisationId: string, amount: number, confirm: boolean) {
  if (!confirm) {
    return previewResult('account_topup', {
      action: `Top up the plan wallet with ${amount} (its currency: INR in India, else USD)`,
      target: { organisationId, wallet: 'plan wallet' },
      effects: [
        `A checkout for ${amount} is created (plus 18 % GST in India); nothing is charged until the user pays it.`,
        'The money is spendable for 365 days once the payment is confirmed.',
      ],
    });
  }
  const checkout = await context.call(SERVICE, {
    method: 'POST',
    path: '/billing/topups',
    body: { organisationId, amountMinor: Math.round(amount * 100) },
  });
  return valueResult({ ...(checkout as object), next: 'Give the user the checkoutUrl to pay in their browser.' });
}

export const topUpTools: readonly Tool[] = [accountTopup];
