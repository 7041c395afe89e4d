/**
 * The RTP port range (RTP_PORT_MIN..RTP_PORT_MAX): one bound UDP socket per call leg, on an even port (RTCP's
 * convention is the odd port above: a peer's RTCP, which we neither send nor read, never lands on another call's
 * audio socket). A lease is released exactly once however its call ends; a port another program holds is skipped.
 */
import dgram from 'node:dgram';
import dns from 'node:dns';
import { isIP } from 'node:net';

export class NoFreeRtpPortError extends Error {
  override name = 'NoFreeRtpPortError';
  readonly code = 'no_rtp_port';
  readonly retryable = true;
}

export interface PortLease {
  readonly port: number;
  readonly socket: dgram.Socket;
  /** Closes the socket and returns the port. Idempotent. */
  release(): void;
}

export class RtpPortPool {
  readonly #host: string;
  readonly #ports: number[];
  readonly #inUse = new Set<number>();
  #cursor = 0;

  constructor(host: string, min: number, max: number) {
    if (min > max) throw new RangeError('RTP_PORT_MIN must not be above RTP_PORT_MAX');
    this.#host = host;
    this.#ports = [];
    for (let port = min % 2 === 0 ? min : min + 1; port <= max; port += 2) this.#ports.push(port);
    if (this.#ports.length === 0) throw new RangeError('the RTP port range holds no even port');
  }

  get size(): number {
    return this.#ports.length;
  }

  get free(): number {
    return this.#ports.length - this.#inUse.size;
  }

  /** A bound socket on the next free port; NoFreeRtpPortError when every port is taken. */
  async allocate(): Promise<PortLease> {
    for (let tried = 0; tried < this.#ports.length; tried += 1) {
      const port = this.#ports[this.#cursor]!;
      this.#cursor = (this.#cursor + 1) % this.#ports.length;
      if (this.#inUse.has(port)) continue;
      this.#inUse.add(port);
      const socket = dgram.createSocket({ type: this.#host.includes(':') ? 'udp6' : 'udp4', lookup: literalLookup });
      try {
        await new Promise<void>((resolve, reject) => {
          socket.once('error', reject);
          socket.bind(port, this.#host, () => {
            socket.off('error', reject);
            resolve();
          });
        });
      } catch {
        this.#inUse.delete(port);
        socket.close();
        continue; // held by another program: try the next one
      }
      socket.on('error', () => {}); // ICMP port unreachable from a peer that went away: not our failure
      let released = false;
      return {
        port,
        socket,
        release: () => {
          if (released) return;
          released = true;
          try {
            socket.close();
          } catch {
            // already closed
          }
          this.#inUse.delete(port);
        },
      };
    }
    throw new NoFreeRtpPortError(`no free RTP port in ${this.#ports[0]}..${this.#ports.at(-1)! + 1}`);
  }
}

/**
 * dgram resolves the destination of every send, and dns.lookup answers even an IP literal on the next tick: per
 * packet a closure and a deferral, and the paced sends of a tick all pile up behind it. RTP peers are nearly always
 * addresses (SDP's c= line, the source we latched onto), answered here at once; a name still goes to dns.lookup.
 */
const literalLookup = ((hostname: string, options: unknown, callback: (...args: unknown[]) => void) => {
  const family = isIP(hostname);
  if (family !== 0) callback(null, hostname, family);
  else dns.lookup(hostname, options as dns.LookupOneOptions, callback);
}) as unknown as dgram.SocketOptions['lookup'];
