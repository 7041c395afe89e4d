/**
 * Routing a number's inbound calls to an agent (spec document 1, Phone number routing; the REST routes are
 * Parley's design, called by the MCP tools numbers_assign and numbers_unassign). Assigning points the number's
 * voice webhook at Parley's inbound URL at the carrier first, then records the agent: ASSIGNED. Unassigning
 * returns the number to the status it had (PURCHASED, READY; a NEEDS_SETUP number that assignment moved to
 * Parley comes back READY) and leaves the carrier pointing at Parley, whose webhook then answers that no agent
 * takes the number's calls.
 */
import { findRoutableAgent, type RoutableAgentRow } from '../agents/repository.ts';
import type { Queryable } from '../db/database.ts';
import { ApiError, badField, notFound } from '../errors.ts';
import type { TelephonyContext } from './context.ts';
import {
  assignInboundAgent,
  findActiveNumber,
  readNumber,
  routingStatusOf,
  unassignInboundAgent,
  type PhoneNumberRecord,
  type PhoneNumberRow,
  type UnassignedStatus,
} from './phone-number-repository.ts';

export class NumberRouting {
  readonly #telephony: TelephonyContext;

  constructor(telephony: TelephonyContext) {
    this.#telephony = telephony;
  }

  async assign(organisationId: string, numberId: string, agentId: string): Promise<PhoneNumberRecord> {
    const sql = this.#telephony.sql;
    const number = await this.#number(sql, organisationId, numberId);
    await this.#voiceAgent(sql, organisationId, agentId);
    const pointed = await this.#pointAtParley(organisationId, number);
    await sql.begin(async (tx) => {
      // Read again under lock: an unassign or another assignment meanwhile is applied before this one, not lost.
      const row = await this.#number(tx, organisationId, numberId, true);
      await this.#voiceAgent(tx, organisationId, agentId, true);
      await assignInboundAgent(tx, numberId, agentId, returnStatus(row, pointed));
    });
    return this.#read(organisationId, numberId);
  }

  async unassign(organisationId: string, numberId: string): Promise<PhoneNumberRecord> {
    await this.#telephony.sql.begin(async (tx) => {
      await this.#number(tx, organisationId, numberId, true);
      await unassignInboundAgent(tx, numberId);
    });
    return this.#read(organisationId, numberId);
  }

  /** Points the number at Parley at its carrier, when it came from a connected account; whether it did. */
  async #pointAtParley(organisationId: string, number: PhoneNumberRow): Promise<boolean> {
    if (!number.integration_id) return false;
    const integration = await this.#telephony.integrations.byId(
      this.#telephony.sql,
      organisationId,
      number.integration_id,
    );
    if (!integration?.isActive) return false;
    const account = this.#telephony.accountFor(integration);
    if (!account)
      throw new ApiError('unavailable', `Numbers of ${integration.provider} cannot be routed by this server yet`);
    await account.routeInbound(
      { providerNumberId: number.provider_number_id, phoneNumber: number.phone_number },
      this.#telephony.inboundVoiceUrl(integration.provider),
    );
    return true;
  }

  async #number(sql: Queryable, organisationId: string, id: string, lock = false): Promise<PhoneNumberRow> {
    const row = await findActiveNumber(sql, organisationId, id, lock);
    if (!row) throw notFound('Phone number');
    return row;
  }

  /** An active VOICE agent of the organisation: only those answer calls. */
  async #voiceAgent(sql: Queryable, organisationId: string, agentId: string, lock = false): Promise<RoutableAgentRow> {
    const agent = await findRoutableAgent(sql, organisationId, agentId, lock);
    if (!agent) throw notFound('Agent');
    if (agent.agent_type !== 'VOICE')
      throw badField('agentId', 'must be a VOICE agent: chat agents do not answer calls');
    if (!agent.is_active) throw badField('agentId', 'is a paused agent (isActive false): activate it first');
    return agent;
  }

  async #read(organisationId: string, id: string): Promise<PhoneNumberRecord> {
    const record = await readNumber(this.#telephony.sql, organisationId, id);
    if (!record) throw notFound('Phone number');
    return record;
  }
}

/** Where the number returns when unassigned later. */
function returnStatus(row: PhoneNumberRow, pointedAtParley: boolean): UnassignedStatus {
  const current = routingStatusOf(row);
  if (current === 'ASSIGNED') return row.unassigned_routing_status ?? 'READY';
  if (current === 'NEEDS_SETUP' && pointedAtParley) return 'READY';
  return current ?? 'READY';
}
