/**
 * `npm run bench -- sip`: concurrent SIPp calls with RTP against the SIP gateway (issue 15, Benchmark). SIPp places
 * `--calls` calls at `--rate` a second, each playing a flite sentence as G.711 RTP from a pcap for `--hold` seconds,
 * then BYE. Behind the gateway, a stand-in control plane accepts every INVITE and a stand-in engine echoes each
 * call's audio back over the bus, so every call carries RTP both ways through the gateway's whole path (decode,
 * jitter buffer, bus, encode, pacing) without the speech workers, whose cost is the engine suites' subject.
 *
 * Reports calls held, the gateway's inbound RTP loss and lateness (its jitter buffers), outbound lateness measured
 * where the packets land (a UDP sink in a process of its own, rtp-sink.ts: each packet's delay against its
 * stream's 20 ms schedule, outbound-lateness.ts), and where that lateness comes from in this process: the pacing
 * clock's tick lateness, the tick's own work (every call's packet built and handed to the kernel) and GC pauses.
 * CPU per call is this process's (gateway and stand-ins), the sink's apart. Target: 200 calls, p99 of outbound
 * lateness ≤ 10 ms.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { processPacingClock, type ClockOutput } from '@parley/engine/audio';
import { MemoryBus } from '@parley/engine/bus';
import { isAudioFrame, queues, sipCodecs, subjects } from '@parley/engine/protocol';
import { SipGateway } from '@parley/sip-gateway';
import { fliteSpeech8k, rtpPackets, runSipp, writePcap } from '@parley/sip-gateway/testing';
import { machineFacts } from '../machine.ts';
import { percentile, SampleBuffer } from '../percentiles.ts';
import { reportPage, writeResultsFile } from '../results-file.ts';
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, type ExitCode, type Suite, type SuiteContext } from '../suite.ts';
import { formatTable } from '../table.ts';
import { RtpSink } from './rtp-sink.ts';

const DEFAULTS = { calls: 200, rate: 50, holdSeconds: 20 };
/** The target: no packet later than this at p99, ms. */
const TARGET_P99_LATE_MS = 10;
/** First RTP port of the bench's range (the gateway takes two per call: even ports only). */
const RTP_BASE = 44_000;
const SENTENCE =
  'Hello, I would like to know when the clinic opens tomorrow morning, and whether I need an appointment.';

export const sipSuite: Suite = {
  name: 'sip',
  summary: 'concurrent SIPp calls with RTP through the SIP gateway: calls held, packets lost and late, CPU per call',
  options: {
    calls: { type: 'string', valueName: '<n>', description: `concurrent calls (default ${DEFAULTS.calls})` },
    rate: { type: 'string', valueName: '<n>', description: `calls started per second (default ${DEFAULTS.rate})` },
    hold: {
      type: 'string',
      valueName: '<s>',
      description: `seconds each call lasts (default ${DEFAULTS.holdSeconds})`,
    },
    out: { type: 'string', valueName: '<dir>', description: 'where the report is written (default bench/results)' },
  },
  run: runSip,
};

function whole(value: string | boolean | undefined, fallback: number, max: number): number | undefined {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || !/^\d+$/.test(value)) return undefined;
  const n = Number(value);
  return n >= 1 && n <= max ? n : undefined;
}

async function runSip(context: SuiteContext): Promise<ExitCode> {
  const calls = whole(context.extra.calls, DEFAULTS.calls, 1_000);
  const rate = whole(context.extra.rate, DEFAULTS.rate, 500);
  const hold = whole(context.extra.hold, DEFAULTS.holdSeconds, 50);
  if (calls === undefined || rate === undefined || hold === undefined) {
    context.log('--calls (1–1000), --rate (1–500) and --hold (1–50 s) are whole numbers');
    return EXIT_USAGE;
  }
  const machine = machineFacts();
  const dir = await mkdtemp(join(tmpdir(), 'parley-bench-sip-'));
  const bus = new MemoryBus();
  const endedStats: { received: number; lost: number; late: number; sent: number }[] = [];
  const gateway = await SipGateway.start(bus, {
    host: '127.0.0.1',
    sipPort: 0,
    rtpPortMin: RTP_BASE,
    rtpPortMax: RTP_BASE + 2 * calls + 40,
    log: (event, detail) => {
      if (event === 'call ended' && detail?.rtp) endedStats.push(detail.rtp as (typeof endedStats)[number]);
    },
  });
  const cleanups: (() => unknown)[] = [];
  try {
    // The stand-in control plane: every INVITE is answered with a call of its own.
    let callNumber = 0;
    const inbound = bus.subscribe(subjects.sipInbound(), { queue: queues.controlPlane });
    cleanups.push(() => inbound.unsubscribe());
    void (async () => {
      for await (const message of inbound) {
        callNumber += 1;
        message.respond(
          sipCodecs.inboundReply.encode({
            ok: true,
            callId: `bench${callNumber}`,
            organisationId: 'bench',
            streamToken: `token${callNumber}`,
            sipConfigurationId: 'bench',
            referEnabled: false,
          }),
        );
      }
    })();
    // The stand-in engine: accepts each bridge and echoes the caller's frames back.
    const media = bus.subscribe('v1.media.*.in');
    cleanups.push(() => media.unsubscribe());
    void (async () => {
      for await (const message of media) {
        const callId = message.subject.split('.')[2]!;
        if (isAudioFrame(message.data)) bus.publish(subjects.mediaOut(callId), message.data);
        else if (sipCodecs.bridgeIn.decode(message.data).type === 'start')
          bus.publish(subjects.mediaOut(callId), sipCodecs.bridgeOut.encode({ type: 'accepted' }));
      }
    })();

    // Where the gateway's RTP lands: a process of its own, so its timestamps are not our event loop's delays.
    const sink = await RtpSink.start();
    cleanups.push(() => sink.close());
    // The pacing clock's own lateness: how long after its due time each tick ran (the first output of a tick).
    const clock = processPacingClock();
    const tickLate = new SampleBuffer();
    const tickWork = new SampleBuffer();
    const started = performance.now();
    const slippedBefore = clock.slipped;
    let ticks = 0;
    let tickStartedAt = 0;
    const probe: ClockOutput = {
      closed: false,
      tick() {
        ticks += 1;
        tickStartedAt = performance.now();
        // Against the clock's own schedule: after a stall beyond its catch-up limit the clock skips ticks (its
        // schedule slips; counted apart below), and the ticks after are not late by the skipped time again.
        const due = started + (ticks + clock.slipped - slippedBefore) * clock.frameMs;
        tickLate.push(Math.max(0, tickStartedAt - due));
      },
      close() {},
    };
    // And the tick's own work: from the first output to the last, every call's packet built and sent between. The
    // clock ticks in attach order, so this one moves itself back to the end after every tick.
    const tail: ClockOutput = {
      closed: false,
      tick() {
        if (ticks > 0) tickWork.push(performance.now() - tickStartedAt);
        clock.detach(tail);
        clock.attach(tail);
      },
      close() {},
    };
    clock.attach(probe);
    clock.attach(tail);
    cleanups.push(() => {
      clock.detach(tail);
      clock.detach(probe);
    });
    // GC pauses in this process (the gateway's heap): each one holds up whatever tick falls in it.
    const gcPauses = new SampleBuffer();
    const gcObserver = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) gcPauses.push(entry.duration);
    });
    gcObserver.observe({ entryTypes: ['gc'] });
    cleanups.push(() => gcObserver.disconnect());

    context.log(`writing the caller's pcap (${hold} s of flite speech)…`);
    const speech = await fliteSpeech8k(dir, SENTENCE);
    const packets = rtpPackets(speech, { tailMs: 500 });
    const loops = Math.ceil((hold * 1000) / (packets.length * 20));
    const looped = Array.from({ length: loops }, (_, loop) =>
      packets.map((p) => ({ atMs: p.atMs + loop * packets.length * 20, rtp: p.rtp })),
    )
      .flat()
      .slice(0, hold * 50)
      .map((p, i) => ({ atMs: p.atMs, rtp: continuing(p.rtp, i) }));
    const pcap = join(dir, 'caller.pcap');
    await writePcap(pcap, looped);

    context.log(`placing ${calls} calls at ${rate}/s, ${hold} s each…`);
    let maxActive = 0;
    let window: { cpu: NodeJS.CpuUsage; at: number; active: number[] } | undefined;
    let cpuPerCall: number | undefined;
    const sampler = setInterval(() => {
      const active = gateway.health.activeCalls;
      maxActive = Math.max(maxActive, active);
      if (!window && active >= calls) window = { cpu: process.cpuUsage(), at: performance.now(), active: [] };
      if (window && cpuPerCall === undefined) {
        if (active < calls) {
          const used = process.cpuUsage(window.cpu);
          const elapsed = (performance.now() - window.at) * 1000;
          const mean = window.active.reduce((a, b) => a + b, 0) / Math.max(1, window.active.length);
          if (elapsed > 1_000_000 && mean > 0) cpuPerCall = ((used.user + used.system) / elapsed / mean) * 100;
        } else window.active.push(active);
      }
    }, 250);
    cleanups.push(() => clearInterval(sampler));
    const result = await runSipp({
      scenario: 'uac-pcap.xml',
      target: gateway.sipPort,
      dir,
      service: '+14155550123',
      calls,
      extra: ['-l', String(calls), '-r', String(rate)],
      values: { PCAP: pcap, HOLD_MS: hold * 1000, MEDIA_PORT: sink.port },
      timeoutMs: (hold + Math.ceil(calls / rate) + 20) * 1000,
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    const successful = Number(/Successful call\s*\|\s*\d+\s*\|\s*(\d+)/.exec(result.stdout)?.[1] ?? 0);
    const failed = Number(/Failed call\s*\|\s*\d+\s*\|\s*(\d+)/.exec(result.stdout)?.[1] ?? 0);

    const sinkReport = await sink.report(TARGET_P99_LATE_MS);
    const outbound = sinkReport.lateness;
    const ticksSorted = tickLate.sorted();
    const workSorted = tickWork.sorted();
    const gcSorted = gcPauses.sorted();
    const inbound_ = endedStats.reduce(
      (sum, s) => ({
        received: sum.received + s.received,
        lost: sum.lost + s.lost,
        late: sum.late + s.late,
        sent: sum.sent + s.sent,
      }),
      { received: 0, lost: 0, late: 0, sent: 0 },
    );
    const p99 = outbound.p99Ms;
    const ms = (n: number) => (Number.isNaN(n) ? '—' : `${n.toFixed(1)} ms`);
    const gcTotal = gcSorted.reduce((a, b) => a + b, 0);
    const report = [
      `SIP gateway: ${calls} calls placed by SIPp at ${rate}/s, ${hold} s each, G.711 RTP both ways (engine stand-in echoes)`,
      '',
      formatTable(
        [
          ['measure', 'value'],
          ['calls held at once (max)', String(maxActive)],
          ['SIPp calls successful / failed', `${successful} / ${failed}`],
          ['RTP packets in (from SIPp)', String(inbound_.received)],
          ['  lost (concealed) / late (after playout)', `${inbound_.lost} / ${inbound_.late}`],
          [
            'RTP packets out (gateway sent / sink received / dropped at the sink)',
            `${inbound_.sent} / ${outbound.packets} / ${sinkReport.dropped ?? '—'}`,
          ],
          [
            'outbound lateness at the sink p50 / p99 / max',
            `${ms(outbound.p50Ms)} / ${ms(p99)} / ${ms(outbound.maxMs)}`,
          ],
          [`  packets later than ${TARGET_P99_LATE_MS} ms`, String(outbound.over)],
          ['pacing tick lateness p50 / p99', `${ms(percentile(ticksSorted, 50))} / ${ms(percentile(ticksSorted, 99))}`],
          [
            '  ticks skipped (stalls past the 60 ms catch-up: every later packet of a call that far behind)',
            String(clock.slipped - slippedBefore),
          ],
          [
            "tick's work, first call to last p50 / p99",
            `${ms(percentile(workSorted, 50))} / ${ms(percentile(workSorted, 99))}`,
          ],
          [
            'GC pauses (this process): count / total / p99 / max',
            `${gcSorted.length} / ${ms(gcTotal)} / ${ms(percentile(gcSorted, 99))} / ${ms(gcSorted.at(-1) ?? Number.NaN)}`,
          ],
          [
            'CPU per call (gateway + stand-ins, this process)',
            cpuPerCall === undefined ? '— (never all calls up)' : `${cpuPerCall.toFixed(2)} % of a core`,
          ],
          ['CPU of the sink process, whole run', `${(sinkReport.cpuMicros / 1e6).toFixed(1)} s`],
        ],
        ['left', 'right'],
      ),
      '',
      "outbound lateness: each packet's arrival at the sink (a process of its own) against its stream's 20 ms",
      "schedule, less the stream's earliest offset: the pacing timer, the gateway's sends, loopback delivery and the",
      "sink's own wake-up on this machine. The tick rows are this process's side of it.",
      '',
      `target: ${calls} calls held with p99 lateness ≤ ${TARGET_P99_LATE_MS} ms — ${maxActive >= calls && p99 <= TARGET_P99_LATE_MS ? 'met' : 'missed'}`,
    ].join('\n');
    context.out(report);
    if (context.options.json)
      context.out(
        JSON.stringify({
          calls,
          rate,
          hold,
          maxActive,
          successful,
          failed,
          inbound: inbound_,
          sinkPackets: outbound.packets,
          sinkDropped: sinkReport.dropped,
          p99LateMs: p99,
          tickLateP99Ms: percentile(ticksSorted, 99),
          ticksSkipped: clock.slipped - slippedBefore,
          tickWorkP99Ms: percentile(workSorted, 99),
          gcPauses: gcSorted.length,
          gcMaxMs: gcSorted.at(-1),
          cpuPerCall,
        }),
      );
    const out = typeof context.extra.out === 'string' ? context.extra.out : undefined;
    const command = `npm run bench -- sip --calls ${calls} --rate ${rate} --hold ${hold}`;
    const file = await writeResultsFile('sip', machine, reportPage('SIP gateway', machine, command, report), out);
    context.log(`report written to ${file}`);
    if (result.code !== 0 && successful === 0) {
      context.log(result.stdout.slice(-3_000));
      return EXIT_FAILED;
    }
    return EXIT_OK;
  } finally {
    for (const cleanup of cleanups) await cleanup();
    await gateway.close();
    await bus.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Packet `index` of the caller's stream, numbered on from the one before: the pcap repeats the sentence, and its
 * copies' own sequence numbers and timestamps would start over at each repeat — a sender restarting its stream,
 * whose first packets the gateway's jitter buffer rightly counts late until it resyncs.
 */
function continuing(rtp: Buffer, index: number): Buffer {
  const out = Buffer.from(rtp);
  out[1] = (index === 0 ? 0x80 : 0) | (out[1]! & 0x7f);
  out.writeUInt16BE((1000 + index) & 0xffff, 2);
  out.writeUInt32BE((8000 + index * 160) >>> 0, 4);
  return out;
}
