/**
 * An agent's cached greeting (src/greetings): its state, and its audio as WAV, so a dashboard can show whether the
 * first word of a call will be instant and let the owner hear it. Not in the spec; documented in the OpenAPI.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { encodeWav, pcm16FromBytesLE } from '@parley/engine/audio';
import { ApiError } from '../../../errors.ts';
import { ok } from '../../../http/envelope.ts';
import { Envelope } from '../../../http/schemas.ts';
import { principalOf } from '../../../plugins/app/auth.ts';
import { findGreeting } from '../../../greetings/greeting-repository.ts';
import { agentErrors, AgentParams } from './schemas.ts';
import type { AgentService } from '../../../agents/service.ts';

const GREETING_STATUSES = ['none', 'pending', 'ready', 'failed', 'per_call', 'too_long'] as const;

const GreetingState = Type.Object({
  status: Type.Union(
    GREETING_STATUSES.map((s) => Type.Literal(s)),
    {
      description:
        'none: no greeting (or a CHAT agent); pending: being synthesised; ready: cached, calls start with it at once; ' +
        'failed: synthesis failed (see error), calls synthesise it themselves; per_call: the greeting has placeholders without ' +
        'defaults in customVariables, so each call synthesises its own; too_long: over 20 s, synthesised per call.',
    },
  ),
  agentVersion: Type.Union([Type.Integer(), Type.Null()], { description: 'The agent version the state is about.' }),
  text: Type.Unsafe<string | null>({
    type: ['string', 'null'],
    description: 'The greeting as cached: placeholders filled from the default customVariables.',
  }),
  durationMs: Type.Union([Type.Integer(), Type.Null()]),
  error: Type.Unsafe<string | null>({ type: ['string', 'null'], description: 'Why synthesis failed.' }),
  updatedAt: Type.Unsafe<string | null>({
    type: ['string', 'null'],
    format: 'date-time',
    description: 'When the state last changed.',
  }),
});

export function greetingRoutes(app: FastifyInstance, agents: AgentService): void {
  app.get<{ Params: { id: string } }>(
    '/voice/agents/:id/greeting',
    {
      schema: {
        tags: ['agents'],
        summary: "State of the agent's cached greeting audio",
        description:
          'Every save of a voice agent synthesises its greeting in the background through the TTS workers; a call ' +
          'plays the cached audio the moment it is answered when the greeting it says matches.',
        params: AgentParams,
        response: { 200: Envelope(GreetingState), ...agentErrors(404) },
      },
      config: { scope: 'agents:read' },
    },
    async (request) => {
      const agent = await agents.get(principalOf(request), request.params.id);
      const row = await findGreeting(app.sql, agent.id);
      // A row of an older version is what the agent sounded like before its last save: the new one is on its way.
      const current = row && row.agentVersion === agent.version;
      return ok({
        status: row ? (current ? row.status : 'pending') : 'none',
        agentVersion: row?.agentVersion ?? null,
        text: row?.text ?? null,
        durationMs: row?.audio && row.sampleRate ? Math.round((row.audio.length / 2 / row.sampleRate) * 1000) : null,
        error: row?.error ?? null,
        updatedAt: row?.updatedAt.toISOString() ?? null,
      });
    },
  );

  app.get<{ Params: { id: string } }>(
    '/voice/agents/:id/greeting/audio',
    {
      schema: {
        tags: ['agents'],
        summary: "The agent's cached greeting as a WAV file (16 kHz mono PCM16)",
        params: AgentParams,
        response: {
          200: Type.Unsafe<Buffer>({ description: 'audio/wav', type: 'string', format: 'binary' }),
          ...agentErrors(404),
        },
      },
      config: { scope: 'agents:read' },
    },
    async (request, reply) => {
      const agent = await agents.get(principalOf(request), request.params.id);
      const row = await findGreeting(app.sql, agent.id);
      if (!row || row.status !== 'ready' || !row.audio || !row.sampleRate || row.agentVersion !== agent.version) {
        throw new ApiError(
          'not_found',
          `No cached greeting audio for this agent version (status: ${row ? (row.agentVersion === agent.version ? row.status : 'pending') : 'none'})`,
        );
      }
      return reply
        .type('audio/wav')
        .send(encodeWav({ sampleRate: row.sampleRate, samples: pcm16FromBytesLE(row.audio) }));
    },
  );
}
