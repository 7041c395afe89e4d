/**
 * Buying numbers on the customer's own carrier-a account (not in the spec's REST list; the MCP tools numbers_search
 * and numbers_purchase need it): search the carrier's inventory, and buy a number onto the account answered by
 * Parley's application there. Like carrier-b's purchase, the wallet must be funded (402) and is not debited: the
 * carrier charges the account it is bought on.
 */
import type { Principal } from '../../auth/principal.ts';
import { notFound } from '../../errors.ts';
import type { TelephonyContext } from '../../telephony/context.ts';
import { readNumber, savePurchasedNumber, type PhoneNumberRecord } from '../../telephony/phone-number-repository.ts';
import { assertFunded } from '../../wallet/wallet.ts';
import { applicationUrls } from './api.ts';
import { CarrierAInventory, type RentableNumber } from './inventory.ts';
import { CarrierAService, PROVIDER } from './numbers.ts';
import type { PurchaseBody, SearchBody } from './types.ts';

/** The country searched when none is named. */
const DEFAULT_COUNTRY = 'US';

export interface CarrierASearchResult {
  country: string;
  type: string;
  numbers: RentableNumber[];
}

export class CarrierAPurchases {
  readonly #telephony: TelephonyContext;
  readonly #accounts: CarrierAService;

  constructor(telephony: TelephonyContext) {
    this.#telephony = telephony;
    this.#accounts = new CarrierAService(telephony);
  }

  async search(principal: Principal, body: SearchBody): Promise<CarrierASearchResult> {
    const t = this.#telephony;
    await t.requireSelfServe(t.sql, principal.organisationId);
    await assertFunded(t.sql, principal.organisationId);
    const inventory = await this.#inventory(principal.organisationId);
    const country = (body.country ?? DEFAULT_COUNTRY).toUpperCase();
    const type = body.type ?? 'local';
    const numbers = await inventory.search({
      countryIso: country,
      type,
      pattern: body.pattern,
      region: body.region,
      city: body.city,
    });
    return { country, type, numbers: numbers.filter((n) => n.voice) };
  }

  async purchase(principal: Principal, body: PurchaseBody): Promise<PhoneNumberRecord> {
    const t = this.#telephony;
    const organisationId = principal.organisationId;
    await t.requireSelfServe(t.sql, organisationId);
    await assertFunded(t.sql, organisationId);
    const integration = await t.requireIntegration(t.sql, organisationId, PROVIDER);
    const { appId } = await this.#accounts
      .client(integration)
      .ensureApplication(applicationUrls(t.inboundVoiceUrl(PROVIDER)));
    const inventory = new CarrierAInventory({
      baseUrl: t.apiUrl(PROVIDER),
      credentials: this.#accounts.credentials(integration),
    });
    await inventory.rent(body.phoneNumber, appId);
    const id = await savePurchasedNumber(t.sql, {
      organisationId,
      provider: PROVIDER,
      integrationId: integration.id,
      remote: {
        providerNumberId: body.phoneNumber.replace(/^\+/, ''),
        phoneNumber: body.phoneNumber,
        friendlyName: null,
        countryCode: null,
        capabilities: { voice: true, sms: false },
        type: null,
        region: null,
        carrierCapabilities: { voice: true, sms: false, mms: false },
        inbound: 'parley',
      },
      routingStatus: 'PURCHASED',
    });
    const record = await readNumber(t.sql, organisationId, id);
    if (!record) throw notFound('Phone number');
    return record;
  }

  async #inventory(organisationId: string): Promise<CarrierAInventory> {
    const t = this.#telephony;
    const integration = await t.requireIntegration(t.sql, organisationId, PROVIDER);
    return new CarrierAInventory({ baseUrl: t.apiUrl(PROVIDER), credentials: this.#accounts.credentials(integration) });
  }
}
