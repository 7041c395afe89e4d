/**
 * `parley call`: places one websocket call on a running Parley and plays the caller's part — the quickest proof that
 * a machine works end to end (README, Quick start). Without --agent it talks to the demo FLOW agent (created on first
 * use), which needs no language model. It prints the transcript both ways and saves what the agent said as a WAV.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { encodeWav } from '@parley/engine/audio';
import { loadConfig } from '../../config.ts';
import { resolveConnection } from '../client/profile.ts';
import type { CommandArgs } from '../command.ts';
import { PHONE_SAMPLE_RATE, speakAsCaller } from '../try-call/caller-voice.ts';
import { runMediaStreamCall } from '../try-call/media-stream-call.ts';
import { ParleyApi } from '../try-call/parley-api.ts';

export const DEFAULT_SENTENCE = 'Hello world';
/** The whole call, greeting to goodbye, is well under this; past it the caller hangs up. */
const CALL_MAX_MS = 60_000;
/** How long the call's record may take to say it ended once the stream closed. */
const END_RECORDED_WITHIN_MS = 10_000;

export async function runCall(args: CommandArgs): Promise<number> {
  const dataDir = loadConfig().dataDir;
  const { url, key } = await resolveConnection({ url: args.flags.url, key: args.flags.key });
  const sentence = args.flags.speak ?? DEFAULT_SENTENCE;
  const out = path.resolve(args.flags.out ?? path.join(dataDir, 'try-call.wav'));
  const api = new ParleyApi(url, key);

  const speech = await speakAsCaller(sentence);
  const agentId = args.flags.agent ?? (await api.demoAgentId());
  const call = await api.placeWebsocketCall(agentId);
  say(`Call ${call.sessionId} placed (callType websocket) on agent ${agentId}${args.flags.agent ? '' : ' (the demo)'}`);
  say(`Caller will say: "${sentence}"`);
  const streamed = await runMediaStreamCall(call.websocketUrl, speech, CALL_MAX_MS);
  if (streamed.endedBy === 'timeout') say(`The agent had not hung up after ${CALL_MAX_MS / 1000} s; hung up.`);

  await api.waitForEnd(call.sessionId, END_RECORDED_WITHIN_MS);
  const transcript = await api.transcript(call.roomName);
  say('\nTranscript:');
  for (const line of transcript) say(`  ${line.speaker === 'assistant' ? 'agent ' : 'caller'}: ${line.text}`);
  if (!transcript.some((line) => line.speaker !== 'assistant')) say('  (nothing the caller said was recognised)');

  await mkdir(path.dirname(out), { recursive: true });
  await writeFile(out, encodeWav({ sampleRate: PHONE_SAMPLE_RATE, samples: streamed.agentAudio }));
  const shown = path.relative(process.cwd(), out).startsWith('..') ? out : path.relative(process.cwd(), out);
  say(`\nWhat the agent said (${(streamed.agentAudio.length / PHONE_SAMPLE_RATE).toFixed(1)} s): ${shown}`);
  return 0;
}

function say(line: string): void {
  process.stdout.write(`${line}\n`);
}
