/**
 * Widget tokens: public keys holding only `widget:bootstrap`, bound to one chat agent, at most three active per
 * agent (spec documents 1–3).
 */
import type { Principal } from './principal.ts';
import type { KeyStore } from './key-store.ts';
import { WIDGET_SCOPE } from './scopes.ts';
import type { Sql } from '../db/database.ts';
import { ApiError, badField, notFound } from '../errors.ts';
import {
  activeWidgetTokens,
  findAgent,
  findKey,
  insertApiKey,
  keyRecord,
  lockAgentType,
  revokeActiveKey,
  type KeyRecord,
} from './api-key-repository.ts';
import type { CreateWidgetBody, RevokeWidgetBody } from './types.ts';

/** Spec document 3: each chat agent may hold at most 3 active widget tokens. */
export const MAX_ACTIVE_WIDGET_TOKENS = 3;

export class WidgetTokenService {
  readonly #sql: Sql;
  readonly #keys: KeyStore;

  constructor(sql: Sql, keys: KeyStore) {
    this.#sql = sql;
    this.#keys = keys;
  }

  async list(principal: Principal, agentId: string): Promise<{ keys: KeyRecord[]; total: number }> {
    if (!(await findAgent(this.#sql, principal.organisationId, agentId))) throw notFound('Agent');
    const keys = (await activeWidgetTokens(this.#sql, principal.organisationId, agentId)).map(keyRecord);
    return { keys, total: keys.length };
  }

  async create(principal: Principal, body: CreateWidgetBody): Promise<KeyRecord & { key: string }> {
    return this.#sql.begin(async (tx) => {
      const agentType = await lockAgentType(tx, principal.organisationId, body.agent_id);
      if (!agentType) throw notFound('Agent');
      if (agentType !== 'CHAT') throw badField('agent_id', 'must be a CHAT agent');
      const active = await activeWidgetTokens(tx, principal.organisationId, body.agent_id);
      if (active.length >= MAX_ACTIVE_WIDGET_TOKENS) {
        throw new ApiError(
          'limit_reached',
          `The agent already has ${MAX_ACTIVE_WIDGET_TOKENS} active widget tokens; revoke one first`,
        );
      }
      const created = await insertApiKey(tx, {
        organisationId: principal.organisationId,
        userId: principal.userId,
        name: body.name ?? `widget-${body.agent_id}`,
        scopes: [WIDGET_SCOPE],
        kind: 'widget',
        agentId: body.agent_id,
      });
      const row = await findKey(tx, principal.organisationId, created.id);
      return { ...keyRecord(row!), key: created.key };
    });
  }

  async revoke(principal: Principal, body: RevokeWidgetBody): Promise<KeyRecord> {
    const row = await findKey(this.#sql, principal.organisationId, body.key_id);
    if (!row || row.kind !== 'widget' || row.agent_id !== body.agent_id) throw notFound('Widget token');
    if (row.revoked_at) throw new ApiError('invalid_state', 'The widget token is already revoked');
    const revokedAt = await revokeActiveKey(this.#sql, row.id);
    if (!revokedAt) throw new ApiError('invalid_state', 'The widget token is already revoked');
    await this.#keys.revoke({ keyId: row.id });
    return keyRecord({ ...row, revoked_at: revokedAt });
  }
}
