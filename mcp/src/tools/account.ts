/** The account tools: the wallet and billing standing, the organisations a connection sees, and top-ups. */
import { topUpTools } from './account-topup.ts';
import { DEFAULT_LIST_LIMIT, listResult, valueResult } from './results.ts';
import { RestFailure } from './tool-context.ts';
import { defineTool, listArguments, orgArgument, type Tool } from './tool.ts';

const accountOrg = defineTool({
  name: 'account_org',
  title: 'Organisations',
  description: 'The organisations this connection sees, with their owner and members; an API key sees its own.',
  toolClass: 'read',
  scopes: ['org:read'],
  input: { ...listArguments },
  async run(args, context) {
    const organisations = await context.call<unknown[]>('Organisations', { method: 'GET', path: '/organisations' });
    const limit = args.limit ?? DEFAULT_LIST_LIMIT;
    return listResult({ items: organisations.slice(0, limit), total: organisations.length, limit }, args.fields);
  },
});

const accountBalance = defineTool({
  name: 'account_balance',
  title: 'Wallet, billing status and plan',
  description:
    'The pay-as-you-go wallet in US dollars (null before it exists), the billing status (whether calls and messages ' +
    'can be made, rates, billing country and currencies) and the plan wallet with its subscription.',
  toolClass: 'read',
  scopes: ['wallet:read', 'billing:read'],
  input: { ...orgArgument },
  async run(args, context) {
    const organisationId = context.organisation(args.org_id);
    const status = await context.call('Billing', { method: 'GET', path: `/billing/status/${organisationId}` });
    const plan = await context.call('Billing', { method: 'GET', path: '/billing/balance', query: { organisationId } });
    const wallet = await context
      .call('Wallet', { method: 'GET', path: `/wallet/${organisationId}` })
      // No wallet yet is an answer, not a failure: its balance is shown as null.
      .catch((error: unknown) => {
        if (error instanceof RestFailure && error.status === 404) return null;
        throw error;
      });
    return valueResult({ organisationId, wallet, status, plan });
  },
});

export const accountTools: readonly Tool[] = [accountBalance, accountOrg, ...topUpTools];
