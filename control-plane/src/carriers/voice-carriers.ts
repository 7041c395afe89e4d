/** The carriers Parley places and answers phone calls with, by name: the voice side of their modules. */
import { carrierAModule, carrierBModule, carrierCModule } from './carriers.ts';
import type { VoiceCarrier, VoiceCarrierName } from './voice-carrier.ts';

export const voiceCarriers: Readonly<Record<VoiceCarrierName, VoiceCarrier>> = {
  'carrier-a': carrierAModule.voice,
  'carrier-b': carrierBModule.voice,
  'carrier-c': carrierCModule.voice,
};

export * from './voice-carrier.ts';
