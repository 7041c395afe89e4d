/**
 * numbers_search and numbers_purchase (spec document 2): carrier-a numbers for the organisation, by the route its
 * telephony takes — rented by the service when it gets managed numbers (GET/POST /telephony/managed/{org}/…, paid
 * monthly from its plan wallet), else bought on its own connected carrier-a account (POST /telephony/carrier-a/search
 * and …/purchase, billed by the carrier). Buying is confirm-gated: the preview names the number and who pays what.
 */
import { z } from 'zod';
import { previewResult } from './confirm.ts';
import { valueResult } from './results.ts';
import { confirmArgument, defineTool, orgArgument, type Tool } from './tool.ts';
import type { ToolContext } from './tool-context.ts';

const SERVICE = 'Telephony';

interface ManagedStatus {
  available: boolean;
  route: string;
  unavailable: { code: string; message: string } | null;
}

interface AvailableNumber {
  phoneNumber: string;
  region: string | null;
  type: string | null;
}

/** Whether the organisation's numbers are rented by the service (managed) rather than bought on its own account. */
async function managedRoute(context: ToolContext, orgId: string): Promise<boolean> {
  const status = await context.call<ManagedStatus>(SERVICE, {
    method: 'GET',
    path: `/telephony/managed/${encodeURIComponent(orgId)}`,
  });
  return status.route === 'managed';
}

const numbersSearch = defineTool({
  name: 'numbers_search',
  title: 'Search numbers to buy',
  description:
    'carrier-a numbers the organisation can get now: rented by the service (managed numbers, India) or on its own ' +
    'carrier-a account. Filter by country (own account only), type, pattern (digits after the country code), region ' +
    'or city.',
  toolClass: 'read',
  scopes: ['numbers:read', 'numbers:write'],
  input: {
    country: z
      .string()
      .regex(/^[A-Za-z]{2}$/)
      .optional()
      .describe('ISO 3166-1 alpha-2, e.g. US; default US'),
    type: z.enum(['local', 'mobile', 'tollfree', 'national', 'fixed']).optional().describe('Default local'),
    pattern: z
      .string()
      .regex(/^[0-9]{1,10}$/)
      .optional()
      .describe('Digits after the country code, e.g. an area code'),
    region: z.string().min(1).max(64).optional().describe('A state or province name'),
    city: z.string().min(1).max(64).optional(),
    ...orgArgument,
  },
  async run(args, context) {
    const orgId = context.organisation(args.org_id);
    if (await managedRoute(context, orgId)) {
      const query: Record<string, string> = {};
      if (args.pattern) query.pattern = args.pattern.slice(0, 8);
      const found = await context.call(SERVICE, {
        method: 'GET',
        path: `/telephony/managed/${encodeURIComponent(orgId)}/available`,
        query,
      });
      return valueResult({ route: 'managed', ...(found as object) });
    }
    const found = await context.call(SERVICE, {
      method: 'POST',
      path: '/telephony/carrier-a/search',
      body: {
        organisationId: orgId,
        ...(args.country ? { country: args.country } : {}),
        ...(args.type ? { type: args.type } : {}),
        ...(args.pattern ? { pattern: args.pattern } : {}),
        ...(args.region ? { region: args.region } : {}),
        ...(args.city ? { city: args.city } : {}),
      },
    });
    return valueResult({ route: 'own_account', ...(found as object) });
  },
});

const numbersPurchase = defineTool({
  name: 'numbers_purchase',
  title: 'Buy a number',
  description:
    'Buy a number found by numbers_search. Managed numbers are rented by the service and paid monthly from the plan ' +
    "wallet; otherwise the number is bought on the organisation's own carrier-a account, billed there. Either way it " +
    'is answered by Parley and assigned to no agent yet (numbers_assign does that).',
  toolClass: 'destructive',
  confirm: true,
  scopes: ['numbers:write'],
  input: {
    phone_number: z
      .string()
      .regex(/^\+[1-9][0-9]{6,14}$/)
      .describe('E.164, from numbers_search (e.g. +14155550123)'),
    ...orgArgument,
    ...confirmArgument,
  },
  async run(args, context) {
    const orgId = context.organisation(args.org_id);
    const managed = await managedRoute(context, orgId);
    if (!args.confirm) {
      const price = managed
        ? await context.call<{ monthlyPriceMinor: number; currency: string; numbers: AvailableNumber[] }>(SERVICE, {
            method: 'GET',
            path: `/telephony/managed/${encodeURIComponent(orgId)}/available`,
          })
        : undefined;
      return previewResult('numbers_purchase', {
        action: `Buy ${args.phone_number}`,
        target: { phoneNumber: args.phone_number, route: managed ? 'managed' : 'own_account' },
        effects: managed
          ? [
              `The service rents ${args.phone_number} for the organisation; its first month (${price!.monthlyPriceMinor} ${price!.currency} minor units) is charged to the plan wallet now, and each month after that.`,
              'The number answers through Parley, assigned to no agent until numbers_assign.',
            ]
          : [
              `${args.phone_number} is bought on the organisation's own carrier-a account, which carrier-a bills; the Parley wallet is not debited (it must hold the minimum balance).`,
              'The number answers through Parley, assigned to no agent until numbers_assign.',
            ],
      });
    }
    const bought = managed
      ? await context.call(SERVICE, {
          method: 'POST',
          path: `/telephony/managed/${encodeURIComponent(orgId)}/numbers`,
          body: { phoneNumber: args.phone_number },
        })
      : await context.call(SERVICE, {
          method: 'POST',
          path: '/telephony/carrier-a/purchase',
          body: { organisationId: orgId, phoneNumber: args.phone_number },
        });
    return valueResult(bought);
  },
});

export const numberPurchaseTools: readonly Tool[] = [numbersSearch, numbersPurchase];
