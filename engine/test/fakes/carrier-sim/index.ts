/**
 * The carrier simulator (engine/package.json `exports` "./testing", re-exported by bench/src/carrier-sim): a
 * local contract fake of carrier-a (Plivo), carrier-b (Twilio) and carrier-c (Exotel-style) — their call APIs,
 * answer documents, signed webhooks and media streams — for the engine's tests, the control plane's, and the bench.
 *
 * - `CarrierSimulator.start()`: the carriers' REST APIs on one local URL; calls placed through them are answered,
 *   their answer XML read and their media streams opened; `inboundCall` rings the application as a carrier would.
 * - `SimStream.connect({ carrier, url })`: the carrier's side of one media stream, straight at a stream URL.
 */
export { CarrierSimulator, SIM_RING_MS, type CarrierSimulatorOptions } from './carrier-simulator.ts';
export { SimCall, type SimCallEnd, type SimCallStatus, type SimHangupSource, type SimOutcome } from './sim-call.ts';
export type { InboundCallOptions, SimAccounts, SimRefusal } from './sim-context.ts';
export type { SimRequestRecord } from './sim-http.ts';
export { SimStream, type SimMark, type SimStreamOptions, type StreamRecord } from './sim-stream.ts';
export { SIM_CARRIERS, formatOfContentType, type SimCarrier, type SimFormat } from './sim-format.ts';
export {
  AnswerError,
  parseXml,
  plivoStream,
  twimlStream,
  type StreamInstruction,
  type XmlElement,
} from './answer-xml.ts';
export { plivoNonce, plivoV3Signature, twilioSignature } from './webhook-signatures.ts';
