import { Type, type Static } from '@sinclair/typebox';
import { Id } from '../../http/schemas.ts';

/** Longest rental term bought or renewed at once, in months: the partner's longest plan is a year. */
export const MAX_MONTHS = 12;

/** Numbers per page of the inventory: the partner's largest page. */
export const MAX_PER_PAGE = 100;

export const KycBody = Type.Object(
  {
    organisationId: Id('Own organisation'),
    payload: Type.Optional(
      Type.Object(
        {},
        {
          additionalProperties: true,
          description:
            "The step's fields (default {}): register: account_type (individual or business), full_name, email, phone, " +
            "billing_address, term_and_condition (true: the customer agreed to the partner's terms), business_name " +
            '(businesses); pan: pan_holder_name, pan_number; aadhaar: optional redirect_url; gst: gst_number (15 ' +
            'characters); final: nothing. Only these fields are sent to the partner.',
        },
      ),
    ),
  },
  { additionalProperties: false },
);

export type KycBody = Static<typeof KycBody>;

const Months = (options: { description: string; default?: number }) =>
  Type.Integer({ minimum: 1, maximum: MAX_MONTHS, ...options });

export const DidsQuery = Type.Object(
  {
    countryCode: Type.Optional(Type.String({ pattern: '^\\+?[0-9]{1,4}$', description: 'Dial code; default 91' })),
    country_code: Type.Optional(Type.String({ pattern: '^\\+?[0-9]{1,4}$', description: 'Alias of countryCode' })),
    type: Type.Optional(
      Type.Integer({ minimum: 1, description: "The partner's number type: 1 local, 2 mobile, 3 toll-free" }),
    ),
    number: Type.Optional(Type.String({ pattern: '^[0-9]{1,15}$', description: 'Digits the number contains' })),
    months: Type.Optional(Months({ description: 'Rental term the number must be offered for' })),
    page: Type.Optional(Type.Integer({ minimum: 1, description: 'Default 1' })),
    perPage: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PER_PAGE, description: 'Default 20' })),
    per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PER_PAGE, description: 'Alias of perPage' })),
  },
  { additionalProperties: false },
);

export type DidsQuery = Static<typeof DidsQuery>;

export const PurchaseBody = Type.Object(
  {
    organisationId: Id('Own organisation'),
    didId: Type.Integer({ minimum: 1, description: 'id of a number from GET /telephony/carrier-d/dids' }),
    didNumber: Type.String({ minLength: 1, maxLength: 20, description: 'did_number of that number' }),
    months: Type.Optional(Months({ default: 1, description: 'Rental term in months, default 1' })),
  },
  { additionalProperties: false },
);

export type PurchaseBody = Static<typeof PurchaseBody>;

export const RenewBody = Type.Object({ organisationId: Id('Own organisation') }, { additionalProperties: false });

export type RenewBody = Static<typeof RenewBody>;
