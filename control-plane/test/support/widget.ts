/**
 * A chat agent with a widget token, made through the REST API as a customer would: what the widget tests and the
 * chat benchmark start from.
 */
import type { TestApp } from './app.ts';
import type { SeededOrganisation } from './seed.ts';

export interface WidgetAgent {
  agentId: string;
  /** The public widget token (scope widget:bootstrap, bound to the agent). */
  token: string;
}

export async function createWidgetAgent(
  t: Pick<TestApp, 'call'>,
  org: SeededOrganisation,
  fields: Record<string, unknown> = {},
): Promise<WidgetAgent> {
  const created = await t.call(org.key, {
    method: 'POST',
    url: '/api/v1/voice/agents',
    payload: {
      name: 'Web helper',
      agentType: 'CHAT',
      agentIdentity: 'You are Ava, the assistant of Acme Plumbing.',
      agentTask: 'Answer questions about opening hours and book visits.',
      greetingMessage: 'Hi {{participantName}}, how can I help?',
      customVariables: { shop: 'Acme Plumbing', city: 'Leeds' },
      ...fields,
    },
  });
  if (created.statusCode !== 201) throw new Error(`agent: ${created.statusCode} ${created.body}`);
  const agentId = created.json().data.id as string;
  const minted = await t.call(org.key, {
    method: 'POST',
    url: '/api/v1/api-keys/widget',
    payload: { organisation_id: org.organisationId, agent_id: agentId, name: 'Homepage' },
  });
  if (minted.statusCode !== 201) throw new Error(`widget token: ${minted.statusCode} ${minted.body}`);
  return { agentId, token: minted.json().data.key as string };
}
