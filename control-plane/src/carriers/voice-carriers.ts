/** The carriers Parley places and answers phone calls with, by name. */
import { carrierA } from './carrier-a/voice.ts';
import { carrierB } from './carrier-b/voice.ts';
import { carrierC } from './carrier-c/voice.ts';
import type { VoiceCarrier, VoiceCarrierName } from './voice-carrier.ts';

export const voiceCarriers: Readonly<Record<VoiceCarrierName, VoiceCarrier>> = {
  'carrier-a': carrierA,
  'carrier-b': carrierB,
  'carrier-c': carrierC,
};

export * from './voice-carrier.ts';
