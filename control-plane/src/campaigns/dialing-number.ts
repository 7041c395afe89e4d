/**
 * The caller a campaign dials from (spec document 2, POST /campaigns: "the dialingNumber rule for carrier and SIP
 * agents"). An agent with a carrier (telephonyProvider set) dials from one of the organisation's active numbers at
 * a voice carrier — the number sent, else the agent's own calling number, which is then saved on the campaign. An
 * agent without a carrier dials through the organisation's active OUTBOUND SIP configuration: none is a 404.
 */
import type { AgentRecord } from '../agents/records.ts';
import { isVoiceCarrier } from '../carriers/voice-carrier.ts';
import type { Queryable } from '../db/database.ts';
import { ApiError, badField } from '../errors.ts';
import { E164_EXAMPLE, isE164 } from '../http/e164.ts';
import { findActiveNumberByValue } from '../telephony/phone-number-repository.ts';
import { activeOutboundSipConfiguration } from './repository.ts';

export interface Dialing {
  dialingNumber: string | null;
  sipConfigurationId: string | null;
}

/** `sent` undefined or null: none given (the agent's number is taken for carrier agents). */
export async function resolveDialing(
  sql: Queryable,
  organisationId: string,
  agent: AgentRecord,
  sent: string | null | undefined,
): Promise<Dialing> {
  const field = 'dialingNumber';
  const given = sent?.replace(/[\s().-]/g, '') || null;
  if (given !== null && !isE164(given)) throw badField(field, `must be ${E164_EXAMPLE}`);
  if (agent.telephonyProvider) {
    const number = given ?? agent.callingNumber;
    if (!number) throw badField(field, 'is required: the agent has no calling number of its own to dial from');
    const row = await findActiveNumberByValue(sql, organisationId, number);
    if (!row) throw badField(field, `${number} is not one of the organisation's active numbers`);
    if (!isVoiceCarrier(row.provider))
      throw badField(
        field,
        `${number} is a ${row.provider} number, which cannot place calls: use a carrier-a, carrier-b or carrier-c number`,
      );
    return { dialingNumber: row.phone_number, sipConfigurationId: null };
  }
  const sipConfigurationId = await activeOutboundSipConfiguration(sql, organisationId, agent.id);
  if (!sipConfigurationId)
    throw new ApiError(
      'not_found',
      'The agent uses no carrier and the organisation has no active outbound SIP configuration to dial through',
    );
  return { dialingNumber: given, sipConfigurationId };
}
