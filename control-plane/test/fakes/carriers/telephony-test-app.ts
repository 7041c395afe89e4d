/**
 * A control-plane app whose carrier APIs are the contract fakes of this folder, for the telephony tests. It is
 * support/app.ts's startTestApp with PARLEY_CARRIER_<X>_API_URL pointed at the fakes (startTestApp takes no carrier
 * URLs), and generous telephony rate limits unless a test asks for the real ones. A carrier added later starts its
 * fake here and adds it to `carrierApiUrls`.
 */
import type { Bus } from '@parley/engine/bus';
import { buildApp } from '../../../src/app.ts';
import { KeyStore } from '../../../src/auth/key-store.ts';
import { CARRIERS, type Carrier } from '../../../src/telephony/carrier.ts';
import { RATE_LIMIT_DEFAULTS, type RateLimitName } from '../../../src/rate-limits.ts';
import { KeyRing } from '../../../src/secrets/key-ring.ts';
import { PUBLIC_URL, type TestApp } from '../../support/app.ts';
import { createTestBus } from '../../support/bus.ts';
import { createTestDatabase, type TestDatabase } from '../../support/database.ts';
import { onSeededChange } from '../../support/seed.ts';
import { CarrierAFake, type FakeCarrierAAccount } from './carrier-a-fake.ts';
import { CarrierBFake } from './carrier-b-fake.ts';
import { CarrierCFake } from './carrier-c-fake.ts';
import { CarrierDFake } from './carrier-d-fake.ts';

/** Parley's inbound voice and hangup webhooks of carrier-a in these apps. */
export const CARRIER_A_VOICE_URL = `${PUBLIC_URL}/webhooks/carrier-a/voice`;
export const CARRIER_A_HANGUP_URL = `${PUBLIC_URL}/webhooks/carrier-a/hangup`;
/** Parley's inbound voice webhook of carrier-b in these apps. */
export const CARRIER_B_VOICE_URL = `${PUBLIC_URL}/webhooks/carrier-b/voice`;

/** Limits high enough that no test meets them by accident; the rate-limit tests set their own. */
const GENEROUS_LIMITS: Partial<Record<RateLimitName, number>> = {
  telephony: 10_000,
  telephonySensitive: 10_000,
  telephonyStrict: 10_000,
};

const NOT_CONFIGURED = Object.fromEntries(CARRIERS.map((carrier) => [carrier, undefined])) as Record<
  Carrier,
  string | undefined
>;

export interface TelephonyTestApp extends TestApp {
  carrierA: CarrierAFake;
  carrierB: CarrierBFake;
  carrierC: CarrierCFake;
  carrierD: CarrierDFake;
  /** The service's own carrier-a account on the fake, when opened (carrierAServiceAccount). */
  carrierAService: FakeCarrierAAccount | undefined;
}

export interface TelephonyTestAppOptions {
  rateLimits?: Partial<Record<RateLimitName, number>>;
  /** Share another app's database (it stays open when this app closes). */
  db?: TestDatabase;
  /** Carrier-a's largest page, to make small accounts page. */
  carrierAPageSize?: number;
  /** PARLEY_CARRIER_A_SERVICE_AUTH_ID: the service's own carrier-a account. */
  carrierAServiceAuthId?: string;
  /** Open the service's own carrier-a account on the fake, id and token both configured (managed number rentals). */
  carrierAServiceAccount?: boolean;
  /** Carrier-b's largest page, to make small accounts page. */
  carrierBPageSize?: number;
  /** Carrier-c's largest page, to make small accounts page. */
  carrierCPageSize?: number;
  /** Secrets at rest; default a ring of one fresh key. */
  secrets?: KeyRing;
}

export async function startTelephonyTestApp(options: TelephonyTestAppOptions = {}): Promise<TelephonyTestApp> {
  const carrierA = await CarrierAFake.start({ maxPageSize: options.carrierAPageSize });
  const carrierB = await CarrierBFake.start({ maxPageSize: options.carrierBPageSize });
  const carrierC = await CarrierCFake.start({ maxPageSize: options.carrierCPageSize });
  const carrierD = await CarrierDFake.start();
  const db = options.db ?? (await createTestDatabase());
  const bus: Bus = await createTestBus();
  const keys = new KeyStore(db.sql, bus, (error) => {
    throw error;
  });
  keys.listen();
  const secrets = options.secrets ?? KeyRing.generate('test').ring;
  const service = options.carrierAServiceAccount ? carrierA.addAccount() : undefined;
  const app = await buildApp({
    config: {
      publicUrl: PUBLIC_URL,
      rateLimits: { ...RATE_LIMIT_DEFAULTS, ...GENEROUS_LIMITS, ...options.rateLimits },
      // Carriers without a fake here are not configured (503), never their real APIs.
      carrierApiUrls: {
        ...NOT_CONFIGURED,
        'carrier-a': carrierA.url,
        'carrier-b': carrierB.url,
        'carrier-c': carrierC.apiUrl,
        'carrier-d': carrierD.url,
      },
      carrierAServiceAuthId: service?.authId ?? options.carrierAServiceAuthId,
      carrierAServiceAuthToken: service?.authToken,
      carrierDReseller: carrierD.reseller,
    },
    sql: db.sql,
    bus,
    keys,
    logger: false,
    secrets,
  });
  await app.ready();
  const stopHearingSeeds = onSeededChange((organisationId) => app.organisationCache.forget(organisationId));
  return {
    app,
    db,
    bus,
    keys,
    secrets,
    carrierA,
    carrierAService: service,
    carrierB,
    carrierC,
    carrierD,
    call(key, request) {
      const headers = { ...(request.headers ?? {}), ...(key ? { authorization: `Bearer ${key}` } : {}) };
      return app.inject({ ...request, headers });
    },
    async close() {
      stopHearingSeeds();
      await app.close();
      await bus.close();
      await carrierA.close();
      await carrierB.close();
      await carrierC.close();
      await carrierD.close();
      if (!options.db) await db.close();
    },
  };
}
