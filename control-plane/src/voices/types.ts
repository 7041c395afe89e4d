import { Type, type Static } from '@sinclair/typebox';
import { StringEnum } from '../http/schemas.ts';

export const VOICE_GENDERS = ['MALE', 'FEMALE', 'NEUTRAL'] as const;

/** A BCP-47 tag or its leading part: `en`, `en-US`, `pt-BR`, `zh-Hant-TW`. */
const LANGUAGE_PATTERN = '^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$';

export const VoicesQuery = Type.Object({
  provider: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'Only voices of this provider (one of `data.providers[].name`: flite, espeak, openai, elevenlabs)',
    }),
  ),
  language: Type.Optional(
    Type.String({
      pattern: LANGUAGE_PATTERN,
      description:
        'Only voices for this BCP-47 language, case-insensitive: `en` matches en-US and en-GB; `en-US` matches en-US ' +
        'and voices tagged plain `en`. Voices tagged `mul` speak every language of their model and always match.',
    }),
  ),
  gender: Type.Optional(
    StringEnum(VOICE_GENDERS, {
      description: 'Only voices of this gender; voices whose provider states none are left out',
    }),
  ),
});

export type VoicesQuery = Static<typeof VoicesQuery>;

const Voice = Type.Object({
  provider: Type.String({ description: "The agent's `voiceProvider` for this voice" }),
  id: Type.String({ description: "The agent's `voiceId` for this voice" }),
  name: Type.String(),
  language: Type.String({ description: 'BCP-47; `mul` for a voice that speaks every language its model supports' }),
  gender: Type.Optional(StringEnum(VOICE_GENDERS, { description: 'Absent when the provider does not say' })),
});

const Provider = Type.Object({
  name: Type.String(),
  default: Type.Boolean({ description: 'Agents that name no voiceProvider speak with this one' }),
  available: Type.Boolean({
    description: 'False when its voices could not be listed just now; they are missing from `voices`',
  }),
  message: Type.Optional(Type.String({ description: 'Why the provider is not available' })),
});

export const VoicesData = Type.Object({
  voices: Type.Array(Voice, {
    description: 'Default provider first, then in the order the installation configures them',
  }),
  total: Type.Integer({ description: 'Voices in `voices`, after the filters' }),
  providers: Type.Array(Provider, {
    description: 'Every text-to-speech provider the installation serves, filters aside',
  }),
});

export type VoicesData = Static<typeof VoicesData>;
