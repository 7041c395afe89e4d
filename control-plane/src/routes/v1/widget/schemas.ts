/** Schemas of the widget routes (spec document 2, Widget) and of the chat conversation they open. */
import { Type, type Static } from '@sinclair/typebox';
import { Envelope, Id, NullableString, authErrors, errors } from '../../../http/schemas.ts';
import { MAX_CHAT_MESSAGE_CHARS, MESSAGE_ID_PATTERN } from '../../../chat/chat-replies.ts';

const ParticipantName = Type.String({ minLength: 1, maxLength: 255, description: "The visitor's name" });
const PhoneNumber = Type.String({
  pattern: '^\\+?[0-9][0-9 ()-]{5,30}$',
  description: "The visitor's phone number (digits, spaces, brackets and dashes, optional leading +)",
});
const RoomName = Type.String({
  minLength: 1,
  maxLength: 128,
  description:
    'The conversation id to open or resume; unique across the installation (the widget makes a random one per visitor)',
});
const CustomVariables = Type.Record(Type.String(), Type.Unknown(), {
  description: "Merged over the agent's customVariables",
});
const chatAuthHeader = Type.Object({
  'x-chat-token': Type.Optional(
    Type.String({ description: 'The chat session token (bootstrap `agentToken`) of the conversation' }),
  ),
});

export const BootstrapBody = Type.Object(
  {
    agentId: Id('The chat agent the widget token is bound to'),
    participantName: Type.Optional(ParticipantName),
    phoneNumber: Type.Optional(PhoneNumber),
    roomName: Type.Optional(RoomName),
    customVariables: Type.Optional(CustomVariables),
  },
  { additionalProperties: false },
);
export type BootstrapBody = Static<typeof BootstrapBody>;

const Metadata = Type.Object({
  orgId: Type.String(),
  agentId: Type.String(),
  agentName: Type.String(),
  agentIdentity: Type.String(),
  agentTask: NullableString,
  agentPersonality: NullableString,
  pronunciation: NullableString,
  escalationMessage: NullableString,
  greetingMessage: Type.Unsafe<string | null>({
    type: ['string', 'null'],
    description: 'The greeting with its {{placeholders}} filled from the merged variables',
  }),
  closingMessage: NullableString,
  voicemailMessage: NullableString,
  agentLanguage: Type.String(),
  callType: Type.Literal('chat'),
  callDirection: Type.Literal('INBOUND'),
  channel: Type.Literal('widget'),
  participantName: NullableString,
  phone_number: NullableString,
  customVariables: Type.Record(Type.String(), Type.Unknown(), {
    description: "The agent's defaults with the request's customVariables, participantName and phoneNumber over them",
  }),
  functionTools: Type.Array(Type.Object({ name: Type.String(), description: Type.String() }), {
    description:
      "The agent's function tools by name and purpose only: a public page never sees their URLs or credentials",
  }),
  roomName: NullableString,
  agentToken: Type.Unsafe<string | null>({
    type: ['string', 'null'],
    description:
      'The chat session token, valid 1 hour, bound to this conversation, agent and organisation: it opens ' +
      'GET /widget/chat (websocket, `?token=`) and the HTTP fallback (header x-chat-token). Null without roomName',
  }),
  webCallEnabled: Type.Boolean(),
});

export const bootstrap = {
  tags: ['widget'],
  summary: 'Bootstrap the website widget: agent metadata, and a chat session when roomName is sent',
  description:
    'Called by the widget with its public widget token. With roomName (then participantName and phoneNumber are ' +
    'required) the conversation of that name is opened — a call record with callType chat and source widget, its ' +
    'greeting as the first transcript line — or resumed when it is already this agent’s, and agentToken is returned. ' +
    'A roomName taken by any other call is a 409.',
  body: BootstrapBody,
  response: { 200: Envelope(Type.Object({ metadata: Metadata })), ...authErrors, ...errors(404, 409, 503) },
};

export const VoiceSessionBody = Type.Object(
  {
    agentId: Id('The chat agent the widget token is bound to'),
    participantName: Type.Optional(ParticipantName),
    participantNumber: Type.Optional(
      Type.String({
        maxLength: 32,
        description: 'The visitor’s number; 8 or more digits count for the per-number cap',
      }),
    ),
    roomName: Type.Optional(Type.String({ maxLength: 128, description: 'Accepted, no effect' })),
    customVariables: Type.Optional(CustomVariables),
  },
  { additionalProperties: false },
);
export type VoiceSessionBody = Static<typeof VoiceSessionBody>;

export const voiceSession = {
  tags: ['widget'],
  summary: 'Start an in-browser voice call with a chat agent',
  description:
    'Runs every check of the spec: 400 web calling not enabled or agent inactive; 402 the organisation cannot pay ' +
    '(wallet, suspension, unpaid usage, plan call limit); 409 the same agent, visitor number and key owner within 5 s; ' +
    '429 at 3 calls per phone number (8+ digits) per organisation per 24 h, or 10 per IP address per 24 h without a ' +
    'number. A request passing them is counted against those caps and placed as a browser call exactly as POST ' +
    '/voice/session with callType web: the answer carries the participant token (one use, 60 s to connect) and wsUrl, ' +
    'the signalling websocket the browser opens with it (WebRTC, Opus); 503 when no engine can take the call.',
  body: VoiceSessionBody,
  response: {
    200: Envelope(
      Type.Object({
        success: Type.Boolean(),
        callType: Type.Literal('web'),
        roomName: Type.String(),
        sessionId: Type.String(),
        token: Type.String(),
        wsUrl: Type.String(),
      }),
    ),
    ...authErrors,
    ...errors(402, 404, 409, 503),
  },
};

const ChatLine = Type.Object({
  role: Type.Union([Type.Literal('visitor'), Type.Literal('agent')]),
  text: Type.String(),
  atMs: Type.Integer({ description: 'ms since the conversation began' }),
});

export const history = {
  tags: ['widget'],
  summary: "The chat conversation's messages so far (the widget's HTTP fallback; the websocket sends them on open)",
  headers: chatAuthHeader,
  response: {
    200: Envelope(Type.Object({ roomName: Type.String(), messages: Type.Array(ChatLine) })),
    401: Type.Ref('ErrorBody'),
    ...errors(404),
  },
};

export const MessageBody = Type.Object(
  {
    messageId: Type.String({
      pattern: MESSAGE_ID_PATTERN,
      description: 'Chosen by the widget; a retry sends the same one and gets the same reply, billed once',
    }),
    text: Type.String({ minLength: 1, maxLength: MAX_CHAT_MESSAGE_CHARS }),
  },
  { additionalProperties: false },
);
export type MessageBody = Static<typeof MessageBody>;

export const message = {
  tags: ['widget'],
  summary: "Send the visitor's message and get the agent's whole reply (the websocket streams it token by token)",
  description:
    'The HTTP fallback of the chat websocket. Each reply is billed once (usage CHATBOT_MESSAGE at the rate card’s ' +
    'ai_web_chat_reply); 402 when the organisation cannot pay, before the model is asked; 409 while the same ' +
    'messageId is still being answered; 503 when no language model is running; 504 when the reply outlasts 60 s.',
  headers: chatAuthHeader,
  body: MessageBody,
  response: {
    200: Envelope(Type.Object({ messageId: Type.String(), reply: Type.String(), replayed: Type.Boolean() })),
    400: Type.Ref('ErrorBody'),
    401: Type.Ref('ErrorBody'),
    ...errors(402, 404, 409, 502, 503),
    504: Type.Ref('ErrorBody', { description: 'The reply took longer than 60 s: nothing stored or billed' }),
  },
};

export const end = {
  tags: ['widget'],
  summary: 'Close the chat conversation: it ends now and gets its post-call analysis (overview, results)',
  description:
    'A conversation the visitor does not close ends by itself after 30 minutes without a message. Closing one that ' +
    'has ended answers when it ended. A later message opens the conversation again; it then ends, and is analysed, ' +
    'again. On the websocket, send `{"type":"end"}` instead.',
  headers: chatAuthHeader,
  response: {
    200: Envelope(Type.Object({ roomName: Type.String(), endedAt: Type.String({ format: 'date-time' }) })),
    401: Type.Ref('ErrorBody'),
    ...errors(404),
  },
};
