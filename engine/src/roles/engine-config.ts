/**
 * What the engine's roles need to know, as the `parley` command reads it from the environment (DESIGN.md §2).
 * The engine never reads the environment itself.
 */
export interface EngineConfig {
  /** OpenAI-compatible LLM; undefined: PROMPT agents greet, then say no language model is configured. */
  llm?: { baseUrl: string; apiKey?: string; model: string };
  /** Default STT provider: pocketsphinx (offline), deepgram or openai. */
  sttProvider: string;
  /** Default TTS provider: flite (offline), espeak (offline), openai or elevenlabs. */
  ttsProvider: string;
  /** Vendor endpoints (tests point these at local fakes) and keys. */
  sttBaseUrl?: string;
  ttsBaseUrl?: string;
  deepgramApiKey?: string;
  elevenlabsApiKey?: string;
  openaiApiKey?: string;
}
