/** The carrier media stream protocols, by carrier (docs/architecture.md §1: one file per carrier). */
import { carrierA } from './carrier-a.ts';
import { carrierB } from './carrier-b.ts';
import { carrierC } from './carrier-c.ts';
import { MEDIA_CARRIERS, type CarrierProtocol, type MediaCarrier } from './carrier-protocol.ts';

export {
  MEDIA_CARRIERS,
  type CarrierProtocol,
  type MediaCarrier,
  type StreamFormat,
  type StreamStart,
} from './carrier-protocol.ts';
export { CarrierTransport, type CarrierStreamStats } from './carrier-transport.ts';

const PROTOCOLS: Readonly<Record<MediaCarrier, CarrierProtocol>> = {
  'carrier-a': carrierA,
  'carrier-b': carrierB,
  'carrier-c': carrierC,
};

/** The protocol of `carrier`, or undefined when no media stream of that name exists. */
export function carrierProtocol(carrier: string): CarrierProtocol | undefined {
  return (MEDIA_CARRIERS as readonly string[]).includes(carrier) ? PROTOCOLS[carrier as MediaCarrier] : undefined;
}
