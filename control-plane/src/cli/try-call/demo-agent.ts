/**
 * The agent `parley call` talks to when none is named: a FLOW agent, scripted, so it needs no language model — only
 * a voice and a speech recogniser. It greets, asks the caller to say something, and says back what it heard, which
 * shows in one call that both directions of the audio work.
 */

/** Found again by this name on later runs, so repeated tries do not pile up agents. */
export const DEMO_AGENT_NAME = 'Parley demo: echo';

/** The greeting the demo agent opens every call with (the test looks for it in the transcript). */
export const DEMO_GREETING = 'Hello, this is the Parley demo.';

/** The POST /voice/agents body of the demo agent. */
export const DEMO_AGENT = {
  name: DEMO_AGENT_NAME,
  builderMode: 'FLOW',
  agentIdentity: 'A scripted demo that says back what the caller said.',
  greetingMessage: DEMO_GREETING,
  flowDefinition: {
    version: 1,
    start: 'listen',
    steps: {
      listen: {
        kind: 'ask',
        question: 'Say something, and I will say it back.',
        field: { key: 'heard', label: 'What the caller said', type: 'text' },
        // The transcript itself is the answer: no language model is asked.
        capture: ['pattern'],
        retries: 1,
        reprompt: 'I did not catch that. Say something, and I will say it back.',
        next: 'repeat',
        fallback: 'nothing_heard',
      },
      repeat: {
        kind: 'end',
        outcome: { key: 'repeated', label: 'Repeated', description: 'The agent heard the caller and said it back.' },
        text: 'You said: {{heard}}. Goodbye.',
      },
      nothing_heard: {
        kind: 'end',
        outcome: { key: 'nothing_heard', label: 'Nothing heard' },
        text: 'I heard nothing I could repeat. Goodbye.',
      },
    },
  },
} as const;
