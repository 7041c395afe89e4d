/** Route schemas of /telephony/carrier-d/… (spec document 2, India numbers (carrier-d)). */
import { Type, type Static } from '@sinclair/typebox';
import { Envelope, Id, NullableString, StringEnum, Timestamp, authErrors, errors } from '../../../http/schemas.ts';
import { KYC_STATES, KYC_STEPS } from '../../../carriers/carrier-d/india-kyc.ts';
import { TAGS } from './schemas.ts';
import { KycBody, DidsQuery, PurchaseBody, RenewBody } from '../../../carriers/carrier-d/types.ts';
export {
  KycBody,
  DidsQuery,
  PurchaseBody,
  RenewBody,
  MAX_MONTHS,
  MAX_PER_PAGE,
} from '../../../carriers/carrier-d/types.ts';

const INDIA_CONNECTION =
  "The India connection is the organisation's carrier-d integration: created by its first KYC step (register) on the " +
  "service's reseller account at the partner (PARLEY_CARRIER_D_USERNAME/PARLEY_CARRIER_D_PASSWORD), whose credentials " +
  'it keeps (shown as "configured"). 404 when the organisation has none and this server has no reseller account.';
const COMMON_ERRORS =
  '403 India provisioning is not enabled for the organisation; 502 the partner refused the reseller credentials or ' +
  'failed; 503 the partner is not configured on this server (PARLEY_CARRIER_D_API_URL).';

export const KycParams = Type.Object({
  step: StringEnum(KYC_STEPS, {
    description: 'Wizard step, in order: register, pan, aadhaar, gst (business accounts only), final',
  }),
});
export type KycParams = Static<typeof KycParams>;

const NextAction = Type.Object({
  code: Type.String({
    description: 'register, pan, aadhaar, verify_aadhaar, gst, final, await_review, purchase or contact_support',
  }),
  message: Type.String(),
});

export const kyc = {
  tags: TAGS,
  summary: 'Submit one step of the India KYC wizard to the numbering partner',
  description:
    "The register step records the customer's acceptance of the partner's terms (when, and by whose key): send it only " +
    'after the customer agreed. Register again to restart a rejected application. The aadhaar step returns ' +
    '`aadhaarVerificationUrl`, which the customer must open in a browser before gst or final. `provider.state` is ' +
    "Parley's reading of the partner's status word `providerStatus`; `kyc.nextAction` says what to do next. " +
    `${INDIA_CONNECTION} Errors: 400 payload not an object or a field of it invalid (validation_failed), invalid step, ` +
    'no India profile yet (a step before register: invalid_state), or the partner rejected the step ' +
    `(carrier_rejected, its own words, e.g. steps out of order); 404 no India connection; ${COMMON_ERRORS}`,
  params: KycParams,
  body: KycBody,
  response: {
    200: Envelope(
      Type.Object({
        provider: Type.Object({
          state: StringEnum(KYC_STATES),
          providerStatus: Type.String({ description: "The partner's own status word" }),
          rejectionReason: NullableString,
        }),
        kyc: Type.Object({
          state: StringEnum(KYC_STATES, {
            description: 'in_progress, pending_review (final submitted), approved, rejected, unknown',
          }),
          lastStep: StringEnum(KYC_STEPS),
          nextAction: NextAction,
        }),
        aadhaarVerificationUrl: Type.Optional(
          Type.String({ description: 'The aadhaar step only: open it in a browser' }),
        ),
      }),
    ),
    ...authErrors,
    ...errors(404, 502, 503),
  },
};

export const DidsParams = Type.Object({ organisationId: Id('Own organisation') });
const NullableInteger = Type.Unsafe<number | null>({ type: ['integer', 'null'] });

export const dids = {
  tags: TAGS,
  summary: 'Indian numbers for sale at the numbering partner, with their monthly price, paginated',
  description:
    "Read only. The fields are the partner's own. When both an option and its alias are sent, countryCode and perPage " +
    `win. Needs the India connection, or this server's reseller account. 404 no India connection; ${COMMON_ERRORS}`,
  params: DidsParams,
  querystring: DidsQuery,
  response: {
    200: Envelope(
      Type.Object({
        dids: Type.Array(
          Type.Object({
            id: Type.Integer(),
            did_number: Type.String(),
            country_code: Type.String(),
            type: NullableInteger,
            months: NullableInteger,
            city: NullableString,
            state: NullableString,
            rate_per_month: Type.Unsafe<number | null>({
              type: ['number', 'null'],
              description: 'Major units of currency',
            }),
            currency: NullableString,
          }),
        ),
        page: Type.Integer(),
        perPage: Type.Integer(),
        total: Type.Integer({ description: 'Numbers matching, over all pages' }),
      }),
    ),
    ...authErrors,
    ...errors(404, 502, 503),
  },
};

export const purchase = {
  tags: TAGS,
  summary: 'Buy an Indian number from the numbering partner',
  description:
    'Immediate (no confirm step). The KYC application must be approved, checked live at the partner, and the wallet ' +
    "must hold at least the minimum balance (1); it is not debited: the number is paid from the service's float at " +
    'the partner. An API key never tops up that float: when it does not cover the number the answer is 402 and an ' +
    "owner or admin completes one purchase from the dashboard. The number's bot sends its calls to " +
    '`{PARLEY_PUBLIC_URL}/webhooks/carrier-d/voice`; it is ACTIVE with routingStatus READY and no agent. Errors: 400 ' +
    'no India profile (invalid_state), didNumber not a number, or the partner refused (carrier_rejected); 402 wallet ' +
    'below the minimum or the float short; 404 no India connection; 409 KYC not approved (kyc_not_approved); 502 no ' +
    'order or bot id returned, or the partner failed; 503 the KYC status could not be confirmed (kyc_unconfirmed): ' +
    'nothing bought.',
  body: PurchaseBody,
  response: { 201: Envelope(Type.Ref('PhoneNumber')), ...authErrors, ...errors(402, 404, 409, 502, 503) },
};

export const RenewParams = Type.Object({ id: Id('Phone number id of an active India number') });
export const renew = {
  tags: TAGS,
  summary: 'Renew an India number for its rental term',
  description:
    'Immediate. The wallet must hold at least the minimum balance (1); it is not debited: the renewal is paid from the ' +
    "service's reseller account. Renews for the term the number was bought for. Errors: 400 the partner refused " +
    `(carrier_rejected); 402; 404 number not found (active, carrier-d) or no active renewal record; ${COMMON_ERRORS}`,
  params: RenewParams,
  body: RenewBody,
  response: {
    200: Envelope(
      Type.Object({
        number: Type.Ref('PhoneNumber'),
        renewal: Type.Object({
          renewedAt: Timestamp,
          purchaseId: Type.String(),
          expiresAt: Type.Unsafe<string | null>({ type: ['string', 'null'], format: 'date-time' }),
        }),
      }),
    ),
    ...authErrors,
    ...errors(402, 404, 502, 503),
  },
};
