import type { Principal } from '../auth/principal.ts';
import type { Sql } from '../db/database.ts';
import { ApiError, notFound } from '../errors.ts';
import type { OrganisationRecord } from './records.ts';
import type { OrganisationCache } from './organisation-cache.ts';
import { updateOrganisation } from './repository.ts';
import type { UpdateOrganisationBody } from './types.ts';

export class OrganisationService {
  readonly #sql: Sql;
  readonly #organisations: OrganisationCache;

  constructor(sql: Sql, organisations: OrganisationCache) {
    this.#sql = sql;
    this.#organisations = organisations;
  }

  async own(principal: Principal): Promise<OrganisationRecord> {
    const organisation = await this.#organisations.get(principal.organisationId);
    if (!organisation) throw notFound('Organisation');
    return organisation;
  }

  /** The key's organisation as a list: empty when it has been deleted meanwhile. */
  async list(principal: Principal): Promise<OrganisationRecord[]> {
    const organisation = await this.#organisations.get(principal.organisationId);
    return organisation ? [organisation] : [];
  }

  async ofUser(principal: Principal, userId: string): Promise<OrganisationRecord[]> {
    if (userId !== principal.userId) throw new ApiError('forbidden', 'userId must be the id of the key owner');
    return this.list(principal);
  }

  async update(principal: Principal, body: UpdateOrganisationBody): Promise<OrganisationRecord> {
    const changes = Object.fromEntries(
      (['name', 'description', 'type', 'visibility'] as const)
        .filter((k) => body[k] !== undefined)
        .map((k) => [k, body[k]]),
    );
    if (Object.keys(changes).length) {
      if (!(await updateOrganisation(this.#sql, principal.organisationId, changes))) throw notFound('Organisation');
      await this.#organisations.changed(principal.organisationId);
    }
    return this.own(principal);
  }
}
