/**
 * An organisation's connected carrier account, opened for placing and answering calls: the stored integration's
 * credentials (sealed by the key ring), the carrier's API URL of this server, and the account's voice settings.
 */
import type { Queryable } from '../db/database.ts';
import { ApiError } from '../errors.ts';
import { CARRIER_API_DEFAULTS, carrierApiUrlVariable, type Carrier } from '../telephony/carrier.ts';
import type { IntegrationStore, StoredIntegration } from '../telephony/integrations.ts';
import { voiceCarriers, type VoiceAccount, type VoiceCarrierName } from './voice-carriers.ts';

export class VoiceAccounts {
  readonly #integrations: IntegrationStore;
  readonly #apiUrls: Partial<Record<Carrier, string | undefined>> | undefined;

  constructor(integrations: IntegrationStore, apiUrls: Partial<Record<Carrier, string | undefined>> | undefined) {
    this.#integrations = integrations;
    this.#apiUrls = apiUrls;
  }

  /** The organisation's account at `carrier`; 400 when none is connected or this server lacks the carrier's URL. */
  async require(sql: Queryable, organisationId: string, carrier: VoiceCarrierName): Promise<VoiceAccount> {
    const integration = await this.#integrations.active(sql, organisationId, carrier);
    if (!integration)
      throw new ApiError(
        'invalid_state',
        `No ${carrier} account is connected: connect one under /telephony/${carrier}/connect`,
      );
    return this.open(integration, carrier);
  }

  /** The account, or undefined when none is connected or its credentials are incomplete (webhook checks). */
  async find(sql: Queryable, organisationId: string, carrier: VoiceCarrierName): Promise<VoiceAccount | undefined> {
    const integration = await this.#integrations.active(sql, organisationId, carrier);
    if (!integration) return undefined;
    try {
      return this.open(integration, carrier);
    } catch {
      return undefined;
    }
  }

  /** The organisation whose active account at `carrier` is `accountId` (the one connected last, should two be). */
  async organisationOf(sql: Queryable, carrier: VoiceCarrierName, accountId: string): Promise<string | undefined> {
    const [row] = await sql<{ organisation_id: string }[]>`select organisation_id from telephony_integrations
      where provider = ${carrier} and account_ref = ${accountId} and is_active order by updated_at desc limit 1`;
    return row?.organisation_id;
  }

  open(integration: StoredIntegration, carrier: VoiceCarrierName): VoiceAccount {
    const account = voiceCarriers[carrier].openAccount({
      integration,
      credentials: this.#integrations.credentials(integration),
      apiUrl: this.#apiUrl(carrier),
    });
    if (!account)
      throw new ApiError(
        'invalid_state',
        `The stored ${carrier} credentials are incomplete: connect the account again`,
      );
    return account;
  }

  #apiUrl(carrier: VoiceCarrierName): string {
    const url = this.#apiUrls ? this.#apiUrls[carrier] : CARRIER_API_DEFAULTS[carrier];
    if (!url)
      throw new ApiError(
        'unavailable',
        `${carrier} is not configured on this server (${carrierApiUrlVariable(carrier)})`,
      );
    return url.replace(/\/+$/, '');
  }
}
