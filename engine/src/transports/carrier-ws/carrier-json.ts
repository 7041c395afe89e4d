/**
 * Reading carriers' JSON without trusting it: every message is checked field by field, and what does not fit is a
 * `malformed` CarrierMessage naming the field, never an exception. Carriers disagree on types (Twilio sends
 * numbers as strings, Plivo as numbers), so numeric fields take either.
 */
import type { CarrierMessage } from './carrier-protocol.ts';

export type JsonObject = Record<string, unknown>;

/** DTMF digits a phone keypad (and RFC 4733) can send. */
const DTMF_DIGIT = /^[0-9*#A-Da-d]$/;
/** Standard base64 with its padding (what every carrier sends); an empty payload is valid and carries nothing. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** The message as an object with a string `event`, or why not. */
export function readEvent(text: string): { event: string; message: JsonObject } | { type: 'malformed'; why: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { type: 'malformed', why: 'not JSON' };
  }
  if (!isObject(value)) return { type: 'malformed', why: 'not a JSON object' };
  const event = value.event;
  if (typeof event !== 'string' || event === '') return { type: 'malformed', why: 'no event' };
  return { event, message: value };
}

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `object[key]` when it is an object. */
export function objectAt(object: JsonObject, key: string): JsonObject | undefined {
  const value = object[key];
  return isObject(value) ? value : undefined;
}

/** `object[key]` when it is a non-empty string. */
export function stringAt(object: JsonObject, key: string): string | undefined {
  const value = object[key];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** `object[key]` as a non-negative safe integer, from a number or a decimal string. */
export function integerAt(object: JsonObject, key: string): number | undefined {
  const value = object[key];
  const number =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && /^\d{1,15}$/.test(value)
        ? Number(value)
        : Number.NaN;
  return Number.isSafeInteger(number) && number >= 0 ? number : undefined;
}

/** A flat map of string values (custom parameters); other values are turned into text, nested ones dropped. */
export function stringMap(value: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!isObject(value)) return out;
  for (const [key, item] of Object.entries(value)) {
    if (typeof item === 'string') out[key] = item;
    else if (typeof item === 'number' || typeof item === 'boolean') out[key] = String(item);
  }
  return out;
}

/** A media message, once its payload is checked to be base64. */
export function mediaMessage(payload: unknown, chunk: number | undefined): CarrierMessage {
  if (typeof payload !== 'string') return { type: 'malformed', why: 'media without payload' };
  if (!BASE64.test(payload)) return { type: 'malformed', why: 'media payload is not base64' };
  return { type: 'media', payload, chunk };
}

/** A DTMF message, once its digit is checked to be one. */
export function dtmfMessage(digit: unknown): CarrierMessage {
  if (typeof digit !== 'string' || !DTMF_DIGIT.test(digit))
    return { type: 'malformed', why: 'dtmf without a keypad digit' };
  return { type: 'dtmf', digit: digit.toUpperCase() };
}

/** A mark echo, once its name is checked. */
export function markMessage(name: unknown): CarrierMessage {
  if (typeof name !== 'string' || name === '') return { type: 'malformed', why: 'mark without a name' };
  return { type: 'mark', name };
}

/** Whether `digits` are all DTMF digits (what sendDigits accepts). */
export function isDtmfString(digits: string): boolean {
  return digits.length > 0 && [...digits].every((d) => DTMF_DIGIT.test(d));
}
