/**
 * What the routes reach over the bus, running for the harness: a TTS worker (GET /voice/voices) and an LLM worker
 * against a fake model (AI enhancement). Without them those routes answer 503, and the harness could not tell a
 * well-formed request from a refused one. A later route that needs another role over the bus starts it here.
 */
import type { Bus } from '@parley/engine/bus';
import { startTestLlm, startTestTts } from '../workers.ts';

export interface BusServices {
  close(): Promise<void>;
}

export async function startBusServices(bus: Bus): Promise<BusServices> {
  const tts = await startTestTts(bus);
  const llm = await startTestLlm(bus);
  return {
    async close() {
      await llm.close();
      await tts.close();
    },
  };
}
