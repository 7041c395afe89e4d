/**
 * What a carrier's failure means to Parley's client (spec documents 2 and 3): credentials or a request the carrier
 * refused are the caller's to fix (400, with the carrier's own words); the carrier's rate limit is a 429; a carrier
 * that is down or answers nonsense is a 502 that says nothing more than which carrier failed.
 */
import { ApiError } from '../errors.ts';
import { CarrierError } from '../telephony/carrier.ts';

export function carrierApiError(error: CarrierError): ApiError {
  const carrier = error.provider;
  const own = error.carrierCode ? `${error.message} (${carrier} error ${error.carrierCode})` : error.message;
  switch (error.code) {
    case 'credentials':
      return new ApiError('carrier_rejected', `${carrier} refused the account's credentials: ${own}`, { cause: error });
    case 'rejected':
    case 'not_found':
      return new ApiError('carrier_rejected', `${carrier} rejected the request: ${own}`, { cause: error });
    case 'rate_limited':
      return new ApiError('rate_limited', `${carrier}'s own rate limit was reached; try again shortly`, {
        cause: error,
      });
    case 'unreachable':
      return new ApiError('upstream_failed', `${carrier} could not be reached or failed; try again shortly`, {
        cause: error,
      });
    case 'invalid_response':
      return new ApiError('upstream_failed', `${carrier} gave an answer Parley could not read`, { cause: error });
  }
}

/** Errors as the API answers them: a CarrierError mapped, anything else as it is. */
export function asApiError(error: unknown): unknown {
  return error instanceof CarrierError ? carrierApiError(error) : error;
}
