/**
 * The far end of the SIP bench's outbound RTP, in a process of its own (forked by rtp-sink.ts): one UDP socket that
 * every call's SDP names, and nothing else on its event loop, so a packet is timestamped as soon as the kernel
 * wakes this process for it — not when the gateway's busy event loop would get round to reading it. It measures
 * what a far end on this machine would see: the gateway's pacing, its sends, loopback delivery and this process's
 * own wake-up on a shared machine.
 */
import { createSocket } from 'node:dgram';
import { readFile } from 'node:fs/promises';
import { OutboundLateness } from './outbound-lateness.ts';
import type { FromSink, ToSink } from './sink-messages.ts';

/** 4 MiB: Linux's default ceiling (net.core.rmem_max); 200 calls' packets of one tick need ~250 KiB of it. */
const RECEIVE_BUFFER_BYTES = 4 * 1024 * 1024;

const socket = createSocket('udp4');
const lateness = new OutboundLateness();
socket.on('message', (data) => {
  const at = performance.now();
  if (data.length >= 12) lateness.add(data.readUInt32BE(8), data.readUInt16BE(2), at);
});

function tell(message: FromSink): void {
  process.send?.(message);
}

/** The kernel's drop count for our socket: the last column of its /proc/net/udp row (Linux only). */
async function droppedAtSocket(port: number): Promise<number | undefined> {
  const table = await readFile('/proc/net/udp', 'utf8').catch(() => undefined);
  const local = `0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  const row = table?.split('\n').find((line) => line.trim().split(/\s+/)[1] === local);
  return row === undefined ? undefined : Number(row.trim().split(/\s+/).at(-1));
}

process.on('message', (message: ToSink) => {
  void (async () => {
    switch (message.type) {
      case 'bind':
        await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
        socket.setRecvBufferSize(RECEIVE_BUFFER_BYTES);
        return tell({
          type: 'bound',
          port: socket.address().port,
          receiveBufferBytes: socket.getRecvBufferSize(),
        });
      case 'report': {
        const cpu = process.cpuUsage();
        return tell({
          type: 'report',
          lateness: lateness.summary(message.overMs),
          dropped: await droppedAtSocket(socket.address().port),
          cpuMicros: cpu.user + cpu.system,
        });
      }
      case 'quit':
        socket.close();
        process.disconnect();
        return;
    }
  })().catch((error: unknown) => tell({ type: 'failed', message: String(error) }));
});
