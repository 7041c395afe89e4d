/**
 * A call's LLM stream, session side. `turn()` streams one completion; a barge-in aborts it (the worker cancels the
 * HTTP request). If the worker dies before the turn produced anything, the turn is sent again to the new worker;
 * once tokens have flowed it fails instead, so the caller never hears a reply twice.
 */
import type { Bus } from '../../bus/index.ts';
import { codecs } from '../../protocol/index.ts';
import type { LlmEvent, LlmRequest } from '../../providers/llm-provider.ts';
import { Channel } from '../../streams/channel.ts';
import { WorkerStream, WorkerStreamError } from './worker-stream.ts';

/** Events one turn may hold unread: a long reply is a few thousand tokens; more means the reader is stuck. */
const TURN_BUFFER_EVENTS = 8_192;

interface PendingTurn {
  request: LlmRequest;
  channel: Channel<LlmEvent>;
  started: boolean;
}

export class LlmClient {
  readonly #stream: WorkerStream;
  readonly #turns = new Map<number, PendingTurn>();
  #nextRequestId = 1;

  private constructor(bus: Bus, callId: string, options: { provider?: string; model?: string }) {
    this.#stream = new WorkerStream(
      bus,
      'llm',
      { callId, options },
      {
        message: (payload) => this.#receive(payload),
        reopened: () => this.#resend(),
        failed: (error) => this.#failAll(error),
      },
    );
  }

  static async open(bus: Bus, callId: string, options: { provider?: string; model?: string } = {}): Promise<LlmClient> {
    const client = new LlmClient(bus, callId, options);
    await client.#stream.open();
    return client;
  }

  get failovers(): number {
    return this.#stream.failovers;
  }

  turn(request: LlmRequest, signal: AbortSignal): AsyncIterable<LlmEvent> {
    const requestId = this.#nextRequestId++;
    const channel = new Channel<LlmEvent>(TURN_BUFFER_EVENTS, 'fail');
    this.#turns.set(requestId, { request, channel, started: false });
    const cancel = () => {
      this.#stream.send(codecs.llmIn.encode({ type: 'cancel', requestId }));
      this.#turns.delete(requestId);
      channel.end();
    };
    if (signal.aborted) cancel();
    else {
      signal.addEventListener('abort', cancel, { once: true });
      this.#stream.send(codecs.llmIn.encode({ type: 'turn', requestId, request: request as never }));
    }
    return channel;
  }

  close(): void {
    this.#stream.close(codecs.llmIn.encode({ type: 'end' }));
    this.#failAll(new WorkerStreamError('closed', 'LLM stream closed'));
  }

  #receive(payload: Uint8Array): void {
    const message = codecs.llmOut.decode(payload);
    if (message.type === 'ended') return;
    const turn = this.#turns.get(message.requestId);
    if (!turn) return;
    turn.started = true;
    switch (message.type) {
      case 'token':
        turn.channel.push({ type: 'token', text: message.text });
        break;
      case 'tool_call':
        turn.channel.push({ type: 'tool_call', call: message.call });
        break;
      case 'done':
        turn.channel.push({ type: 'done', finishReason: message.finishReason, usage: message.usage });
        turn.channel.end();
        this.#turns.delete(message.requestId);
        break;
      case 'error':
        turn.channel.fail(WorkerStreamError.fromWire(message));
        this.#turns.delete(message.requestId);
        break;
    }
  }

  #resend(): void {
    for (const [requestId, turn] of this.#turns) {
      if (turn.started) {
        turn.channel.fail(new WorkerStreamError('worker_lost', 'the LLM worker died mid-reply'));
        this.#turns.delete(requestId);
      } else {
        this.#stream.send(codecs.llmIn.encode({ type: 'turn', requestId, request: turn.request as never }));
      }
    }
  }

  #failAll(error: WorkerStreamError): void {
    for (const turn of this.#turns.values()) turn.channel.fail(error);
    this.#turns.clear();
  }
}
