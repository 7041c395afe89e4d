/**
 * /billing (spec document 2, Wallet and billing): reads with billing:read; the billing country and plan changes
 * with wallet:write and a key owner who is OWNER or ADMIN. Top-ups and payments are registered elsewhere.
 */
import type { FastifyInstance } from 'fastify';
import { ok } from '../../../http/envelope.ts';
import { MANAGER_ROLES } from '../../../auth/scopes.ts';
import { principalOf } from '../../../plugins/app/auth.ts';
import { notFound } from '../../../errors.ts';
import { readBillingDetails } from '../../../billing/billing-account-repository.ts';
import { billingConfig } from '../../../billing/billing-config.ts';
import { billingStatus } from '../../../billing/billing-status.ts';
import { setOrganisationBillingCountry } from '../../../billing/billing-country.ts';
import { listPlans, loadProfile, rateCardFor } from '../../../billing/plan-catalogue.ts';
import { planWalletBalance } from '../../../billing/plan-balance.ts';
import { parseDateValue } from '../../../billing/query-values.ts';
import { changePlan, quoteChange } from '../../../billing/subscription-change.ts';
import { usageDetails, usageSummary } from '../../../billing/usage-report.ts';
import * as planSchemas from './plan-schemas.ts';
import * as schemas from './schemas.ts';

type OrganisationParams = { organisationId: string };
type SubscriptionParams = { id: string };

export default async function billingRoutes(app: FastifyInstance) {
  const read = { scope: 'billing:read' } as const;
  const manage = { scope: 'wallet:write', roles: MANAGER_ROLES } as const;

  app.get<{ Params: OrganisationParams }>(
    '/billing/details/:organisationId',
    { schema: schemas.billingDetails, config: read },
    async (request) => {
      const details = await readBillingDetails(app.sql, request.params.organisationId);
      if (!details) throw notFound('Organisation');
      return ok(details);
    },
  );

  app.put<{ Params: OrganisationParams; Body: schemas.BillingCountryBody }>(
    '/billing/country/:organisationId',
    { schema: schemas.setBillingCountry, config: manage },
    async (request) => {
      const change = await setOrganisationBillingCountry(
        app.sql,
        request.params.organisationId,
        request.body.billingCountry,
        (organisationId) => app.organisationCache.changed(organisationId),
      );
      request.log.info(
        {
          changed: change.changed,
          expiredCheckouts: change.expiredCheckouts,
          signupCredit: change.signupCreditGranted,
        },
        'billing country set',
      );
      return ok(change.status);
    },
  );

  app.get<{ Params: OrganisationParams }>(
    '/billing/config/:organisationId',
    { schema: schemas.billingConfig, config: read },
    async (request) => ok(await billingConfig(app.sql, await loadProfile(app.sql, request.params.organisationId))),
  );

  app.get<{ Params: OrganisationParams }>(
    '/billing/status/:organisationId',
    { schema: schemas.billingStatus, config: read },
    async (request) => ok(await billingStatus(app.sql, request.params.organisationId)),
  );

  app.get<{ Params: OrganisationParams; Querystring: schemas.UsageQuery }>(
    '/billing/usage/:organisationId',
    { schema: schemas.usageSummary, config: read },
    async (request) => ok(await usageSummary(app.sql, request.params.organisationId, request.query)),
  );

  app.get<{ Params: OrganisationParams; Querystring: schemas.UsageDetailsQuery }>(
    '/billing/usage/:organisationId/details',
    { schema: schemas.usageDetails, config: read },
    async (request) => ok(await usageDetails(app.sql, request.params.organisationId, request.query)),
  );

  app.get<{ Querystring: schemas.OptionalOrganisation }>(
    '/billing/plans',
    { schema: planSchemas.listPlans, config: read },
    async (request) => ok(await listPlans(app.sql, principalOf(request).organisationId)),
  );

  app.get<{ Querystring: planSchemas.RateCardQuery }>(
    '/billing/rate-card',
    { schema: planSchemas.rateCard, config: read },
    async (request) => {
      const at = request.query.at === undefined ? new Date() : parseDateValue('at', request.query.at);
      return ok(await rateCardFor(app.sql, principalOf(request).organisationId, at));
    },
  );

  app.get<{ Querystring: schemas.OptionalOrganisation }>(
    '/billing/balance',
    { schema: planSchemas.planBalance, config: read },
    async (request) => ok(await planWalletBalance(app.sql, principalOf(request).organisationId)),
  );

  app.get<{ Params: SubscriptionParams; Querystring: planSchemas.ChangeQuery }>(
    '/billing/subscriptions/:id/change-quote',
    { schema: planSchemas.changeQuote, config: read },
    async (request) =>
      ok(await quoteChange(app.sql, principalOf(request).organisationId, request.params.id, request.query.planId)),
  );

  app.post<{ Params: SubscriptionParams; Body: planSchemas.ChangeQuery }>(
    '/billing/subscriptions/:id/change',
    { schema: planSchemas.changePlan, config: manage },
    async (request) =>
      ok(await changePlan(app.sql, principalOf(request).organisationId, request.params.id, request.body.planId)),
  );
}
