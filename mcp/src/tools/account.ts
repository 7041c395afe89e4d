/** The account tools available so far: the organisations a connection sees (wallet and top-up tools wait for billing). */
import { DEFAULT_LIST_LIMIT, listResult } from './results.ts';
import { defineTool, listArguments, type Tool } from './tool.ts';

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

export const accountTools: readonly Tool[] = [accountOrg];
