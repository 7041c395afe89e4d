/**
 * What `parley call` asks of a running Parley, over its REST API only (it may run on another machine): the demo
 * agent, the websocket call placement, the call's end and its transcript. Every failure is a CliError that says what
 * to do, and a refused placement prints the server's reason (the 503 names a missing recogniser or voice).
 */
import { RestApi, RestRefusal } from '../client/rest-api.ts';
import { CliError } from '../cli-error.ts';
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
  readonly #rest: RestApi;

  constructor(baseUrl: string, apiKey: string) {
    this.#rest = new RestApi(baseUrl, apiKey);
  }

  /** The id of the agent named DEMO_AGENT_NAME, created when the organisation has none. */
  async demoAgentId(): Promise<string> {
    const page = await this.#rest.request<{ items: { id: string; name: string }[] }>('GET', '/voice/agents', {
      query: { search: DEMO_AGENT_NAME, limit: 100 },
    });
    const found = page.items.find((agent) => agent.name === DEMO_AGENT_NAME);
    if (found) return found.id;
    try {
      return (await this.#rest.request<{ id: string }>('POST', '/voice/agents', { json: DEMO_AGENT })).id;
    } catch (error) {
      // The bootstrap organisation has every feature; another may not have FLOW agents.
      if (error instanceof RestRefusal && error.status === 403)
        throw new CliError(
          `${error.message}: pass --agent with an agent of yours, or enable flow agents ` +
            '(parley org features ORG_ID --enable flow_agents)',
        );
      throw error;
    }
  }

  async placeWebsocketCall(agentId: string): Promise<PlacedCall> {
    try {
      return await this.#rest.request<PlacedCall>('POST', '/voice/session', {
        json: { agentId, callType: 'websocket', participantName: 'parley call' },
      });
    } catch (error) {
      // The 503 names what is missing (a recogniser, a voice) and how to install it.
      if (error instanceof RestRefusal && error.status === 503)
        throw new CliError(`Parley could not take the call (503): ${error.reason}`);
      throw error;
    }
  }

  /** Waits until the call's record says it ended (events reach the record a moment after the stream closes). */
  async waitForEnd(sessionId: string, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const call = await this.#rest.request<{ endedAt: string | null }>('GET', `/voice-sessions/${sessionId}`);
      if (call.endedAt) return;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    throw new CliError(`the call ${sessionId} had not ended ${timeoutMs / 1000} s after its stream closed`);
  }

  async transcript(roomName: string): Promise<TranscriptLine[]> {
    const data = await this.#rest.request<{ transcripts: TranscriptLine[] }>(
      'GET',
      `/call-history/sessions/room/${encodeURIComponent(roomName)}/transcripts`,
    );
    return data.transcripts;
  }
}
