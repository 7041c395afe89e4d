/** pocketsphinx speech to text (US English, one final per utterance). Errors are ProviderErrors (../provider-error.ts). */
export {
  createPocketsphinxStt,
  MAX_UTTERANCE_MS,
  MAX_WAITING_UTTERANCES,
  POCKETSPHINX_DEBIAN_MODEL_DIR,
  PocketsphinxStream,
  PocketsphinxSttProvider,
  type PocketsphinxSttOptions,
} from './pocketsphinx-stt.ts';
