/**
 * A campaign's contacts (what the spec leaves out of REST; its MCP tool campaigns_contacts_add is the model): phone,
 * optional name and variables. Numbers are stored in E.164, read with libphonenumber and the campaign's
 * targetCountryCode when written nationally; a number already in the campaign (or twice in one request) is skipped
 * and counted; a number that is no phone number is reported with its row, and the other rows are still added.
 */
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import type { Sql } from '../db/database.ts';
import { newId } from '../db/ids.ts';
import { ApiError } from '../errors.ts';
import { insertContacts, type NewContact } from './contact-repository.ts';
import { FINAL_STATUSES, type CampaignRow } from './records.ts';
import type { ContactInput } from './types.ts';

/** Longest contact name kept, characters. */
const MAX_NAME_LENGTH = 200;
/** Rows reported back as invalid at most: the count is exact, the list says enough to fix a file. */
export const MAX_REPORTED_INVALID = 1_000;

export interface InvalidRow {
  /** 1-based position in the request's list or the file's data rows. */
  row: number;
  phone: string;
  reason: string;
}

export interface ContactsAdded {
  received: number;
  added: number;
  duplicates: number;
  invalid: number;
  invalidRows: InvalidRow[];
  totalContacts: number;
}

/** The E.164 form of `raw`, read in `countryCode` ("+91") when it has no country code; or why it is none. */
export function normalisePhone(raw: string, countryCode: string): { phone: string } | { reason: string } {
  const text = raw.trim();
  if (!text) return { reason: 'no phone number' };
  const international = text.startsWith('00') ? `+${text.slice(2)}` : text;
  const parsed = parsePhoneNumberFromString(international, { defaultCallingCode: countryCode.replace(/^\+/, '') });
  if (!parsed) return { reason: 'is not a phone number' };
  if (!parsed.isValid()) return { reason: `is not a valid number of +${parsed.countryCallingCode}` };
  return { phone: parsed.number };
}

/** Rows checked and normalised: those to insert (one per number) and what was refused. */
export function prepareContacts(
  inputs: readonly ContactInput[],
  countryCode: string,
  firstRow = 1,
): { contacts: NewContact[]; duplicates: number; invalid: InvalidRow[] } {
  const seen = new Set<string>();
  const contacts: NewContact[] = [];
  const invalid: InvalidRow[] = [];
  let duplicates = 0;
  inputs.forEach((input, index) => {
    const result = normalisePhone(input.phone, countryCode);
    if ('reason' in result) {
      invalid.push({ row: firstRow + index, phone: input.phone, reason: result.reason });
      return;
    }
    if (seen.has(result.phone)) {
      duplicates++;
      return;
    }
    seen.add(result.phone);
    const name = input.name?.trim().slice(0, MAX_NAME_LENGTH) || null;
    contacts.push({ id: newId(), phone: result.phone, name, variables: input.variables ?? {} });
  });
  return { contacts, duplicates, invalid };
}

/** A campaign that is over takes no contacts. */
export function assertTakesContacts(campaign: CampaignRow): void {
  if (FINAL_STATUSES.includes(campaign.status))
    throw new ApiError('invalid_state', `The campaign is ${campaign.status}: it takes no more contacts`);
}

/** Adds the contacts to the campaign; numbers it already has count as duplicates. */
export async function addContacts(
  sql: Sql,
  campaign: CampaignRow,
  inputs: readonly ContactInput[],
  firstRow = 1,
): Promise<Omit<ContactsAdded, 'totalContacts'>> {
  const prepared = prepareContacts(inputs, campaign.target_country_code, firstRow);
  const added = await insertContacts(sql, campaign.id, campaign.organisation_id, prepared.contacts);
  return {
    received: inputs.length,
    added,
    duplicates: prepared.duplicates + (prepared.contacts.length - added),
    invalid: prepared.invalid.length,
    invalidRows: prepared.invalid.slice(0, MAX_REPORTED_INVALID),
  };
}
