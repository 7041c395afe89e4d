import type { Principal } from '../../../auth/principal.ts';
import type { Sql } from '../../../db/database.ts';
import { ApiError, notFound } from '../../../errors.ts';
import type { OrganisationRecord } from '../../../accounts/records.ts';
import { loadOrganisation, presentOrganisation } from '../../../accounts/repository.ts';
import type { UpdateOrganisationBody } from './schemas.ts';

export class OrganisationService {
  readonly #sql: Sql;

  constructor(sql: Sql) {
    this.#sql = sql;
  }

  async own(principal: Principal): Promise<OrganisationRecord> {
    const loaded = await loadOrganisation(this.#sql, principal.organisationId);
    if (!loaded) throw notFound('Organisation');
    return presentOrganisation(loaded);
  }

  /** The key's organisation as a list: empty when it has been deleted meanwhile. */
  async list(principal: Principal): Promise<OrganisationRecord[]> {
    const loaded = await loadOrganisation(this.#sql, principal.organisationId);
    return loaded ? [presentOrganisation(loaded)] : [];
  }

  async ofUser(principal: Principal, userId: string): Promise<OrganisationRecord[]> {
    if (userId !== principal.userId) throw new ApiError('forbidden', 'userId must be the id of the key owner');
    return this.list(principal);
  }

  async update(principal: Principal, body: UpdateOrganisationBody): Promise<OrganisationRecord> {
    const changes = Object.fromEntries(
      (['name', 'description', 'type', 'visibility'] as const).filter((k) => body[k] !== undefined).map((k) => [k, body[k]]),
    );
    if (Object.keys(changes).length) {
      const updated = await this.#sql`update organisations set ${this.#sql(changes)}, updated_at = now()
                                       where id = ${principal.organisationId} and deleted_at is null returning id`;
      if (!updated.length) throw notFound('Organisation');
    }
    return this.own(principal);
  }
}
