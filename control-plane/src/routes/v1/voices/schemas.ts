/**
 * GET /voice/voices. The spec names the route and its scope but not its answer ("not shown"); this is Parley's
 * design, and the OpenAPI document shows it: one entry per voice with what an agent's `voiceProvider` and
 * `voiceId` take, plus which providers the installation serves and which of them could not list their voices.
 */
import { Envelope, authErrors, errors } from '../../../http/schemas.ts';
import { VoicesQuery, VoicesData } from '../../../voices/types.ts';
export { VoicesQuery, VoicesData, VOICE_GENDERS } from '../../../voices/types.ts';

export const listVoices = {
  tags: ['agents'],
  summary: 'Text-to-speech voices an agent can use',
  description:
    'The voices of every text-to-speech provider the installation serves, as the TTS workers report them (cached ' +
    'for a minute). A provider that cannot list its voices (a vendor down, a wrong key) is reported in `providers` ' +
    'with `available: false` while the others are still listed. 503 when no TTS worker answers.',
  querystring: VoicesQuery,
  response: { 200: Envelope(VoicesData), ...authErrors, ...errors(502, 503) },
};
