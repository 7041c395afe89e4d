/**
 * What `parley call` asks of a running Parley, over its REST API only (it may run on another machine): the demo
 * agent, the websocket call placement, the call's end and its transcript. Every failure is a CliError that says what
 * to do, and a refused placement prints the server's reason (the 503 names a missing recogniser or voice).
 */
import { CliError } from '../command.ts';
import { DEMO_AGENT, DEMO_AGENT_NAME } from './demo-agent.ts';

export interface PlacedCall {
  sessionId: string;
  roomName: string;
  websocketUrl: string;
}

export interface TranscriptLine {
  speaker: string;
  text: string;
  startMs: number;
}

export class ParleyApi {
  readonly #baseUrl: string;
  readonly #apiKey: string;

  constructor(baseUrl: string, apiKey: string) {
    this.#baseUrl = baseUrl.replace(/\/+$/, '');
    this.#apiKey = apiKey;
  }

  /** The id of the agent named DEMO_AGENT_NAME, created when the organisation has none. */
  async demoAgentId(): Promise<string> {
    const query = new URLSearchParams({ search: DEMO_AGENT_NAME, limit: '100' });
    const page = await this.#request<{ items: { id: string; name: string }[] }>('GET', `/voice/agents?${query}`);
    const found = page.items.find((agent) => agent.name === DEMO_AGENT_NAME);
    if (found) return found.id;
    try {
      return (await this.#request<{ id: string }>('POST', '/voice/agents', DEMO_AGENT)).id;
    } catch (error) {
      // The bootstrap organisation has every feature; another may not have FLOW agents.
      if (error instanceof CliError && / 403: /.test(error.message))
        throw new CliError(
          `${error.message}: pass --agent with an agent of yours, or enable flow agents ` +
            '(parley org features ORG_ID --enable flow_agents)',
        );
      throw error;
    }
  }

  async placeWebsocketCall(agentId: string): Promise<PlacedCall> {
    return this.#request<PlacedCall>('POST', '/voice/session', {
      agentId,
      callType: 'websocket',
      participantName: 'parley call',
    });
  }

  /** Waits until the call's record says it ended (events reach the record a moment after the stream closes). */
  async waitForEnd(sessionId: string, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const call = await this.#request<{ endedAt: string | null }>('GET', `/voice-sessions/${sessionId}`);
      if (call.endedAt) return;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    throw new CliError(`the call ${sessionId} had not ended ${timeoutMs / 1000} s after its stream closed`);
  }

  async transcript(roomName: string): Promise<TranscriptLine[]> {
    const data = await this.#request<{ transcripts: TranscriptLine[] }>(
      'GET',
      `/call-history/sessions/room/${encodeURIComponent(roomName)}/transcripts`,
    );
    return data.transcripts;
  }

  async #request<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    let res: Response;
    try {
      res = await fetch(`${this.#baseUrl}/api/v1${path}`, {
        method,
        headers: {
          authorization: `Bearer ${this.#apiKey}`,
          ...(body !== undefined && { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (error) {
      const cause = (error as Error).cause;
      throw new CliError(
        `Parley is not running at ${this.#baseUrl} (${cause instanceof Error ? cause.message : String(error)}): ` +
          'start it with `npm start` in another terminal, or say where it runs with --url',
      );
    }
    const text = await res.text();
    let json: { data?: T; message?: string; error?: string } | undefined;
    try {
      json = JSON.parse(text) as typeof json;
    } catch {
      json = undefined;
    }
    if (res.ok && json?.data !== undefined) return json.data;
    const reason = json?.message ?? json?.error ?? (text.slice(0, 200) || res.statusText);
    if (res.status === 401) throw new CliError(`Parley refused the API key (401: ${reason}): pass one with --key`);
    if (res.status === 503) throw new CliError(`Parley could not take the call (503): ${reason}`);
    throw new CliError(`${method} ${path} failed with ${res.status}: ${reason}`);
  }
}
