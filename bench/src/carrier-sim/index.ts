/**
 * The carrier simulator, as the bench imports it: carrier-a (Plivo), carrier-b (Twilio) and carrier-c
 * (Exotel-style) call APIs, signed webhooks and real-time media streams on localhost.
 *
 * Its code lives in the engine's testing export (`@parley/engine/testing`, engine/test/fakes/carrier-sim/):
 * the engine's own tests drive its media server with it, and the control plane's tests place and receive calls
 * through it, and neither may import bench (docs/architecture.md §1: nothing imports bench). Load suites take it from here.
 */
export {
  AnswerError,
  CarrierSimulator,
  SIM_CARRIERS,
  SIM_RING_MS,
  SimCall,
  SimStream,
  formatOfContentType,
  parseXml,
  plivoNonce,
  plivoStream,
  plivoV3Signature,
  twilioSignature,
  twimlStream,
  type CarrierSimulatorOptions,
  type InboundCallOptions,
  type SimAccounts,
  type SimCallEnd,
  type SimCallStatus,
  type SimCarrier,
  type SimFormat,
  type SimHangupSource,
  type SimMark,
  type SimOutcome,
  type SimRefusal,
  type SimRequestRecord,
  type SimStreamOptions,
  type StreamInstruction,
  type StreamRecord,
  type XmlElement,
} from '@parley/engine/testing';
