/** /wallet (spec document 2, Wallet and billing; scope wallet:read): reads of the organisation's own wallet. */
import type { FastifyInstance } from 'fastify';
import { ok } from '../../../http/envelope.ts';
import { checkBalance, walletSummary, walletTransactions } from '../../../billing/wallet-views.ts';
import * as schemas from './schemas.ts';

type OrganisationParams = { organisationId: string };

export default async function walletRoutes(app: FastifyInstance) {
  app.get<{ Params: OrganisationParams }>(
    '/wallet/:organisationId',
    { schema: schemas.getWallet, config: { scope: 'wallet:read' } },
    async (request) => ok(await walletSummary(app.sql, request.params.organisationId)),
  );

  app.get<{ Params: OrganisationParams; Querystring: schemas.TransactionQuery }>(
    '/wallet/:organisationId/transactions',
    { schema: schemas.listTransactions, config: { scope: 'wallet:read' } },
    async (request) => ok(await walletTransactions(app.sql, request.params.organisationId, request.query)),
  );

  app.get<{ Params: OrganisationParams; Querystring: schemas.CheckBalanceQuery }>(
    '/wallet/:organisationId/check-balance',
    { schema: schemas.checkBalance, config: { scope: 'wallet:read' } },
    async (request) => ok(await checkBalance(app.sql, request.params.organisationId, request.query.amount)),
  );
}
