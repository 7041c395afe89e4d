/** What placing a call takes and answers: POST /voice/session and POST /voice/callback. */
import type { FunctionToolsInput } from '../../agents/field-schemas.ts';

export interface PlaceCallRequest {
  agentId: string;
  participantName: string;
  callType: 'sip' | 'web' | 'websocket';
  participantNumber?: string;
  useCase?: string;
  customVariables?: Record<string, unknown>;
  callingNumber?: string;
  callTime?: string;
  master_settings?: Record<string, unknown>;
  functionTools?: FunctionToolsInput;
}

export interface PlacedCall {
  success: true;
  roomName: string;
  sessionId: string;
  callType: 'sip';
  status: 'initiated' | 'scheduled';
}

export interface CallbackRequest {
  roomName: string;
  dialingNumber?: string;
  dateTime?: string;
  metaData?: Record<string, unknown>;
}

export interface PlacedCallback {
  success: true;
  callType: 'sip';
  roomName: string;
  sessionId: string;
  message: string;
  originalRoomName: string;
  originalSessionId: string;
  scheduledFor: string | null;
}

export interface PlacedWebsocketCall {
  success: true;
  roomName: string;
  sessionId: string;
  callType: 'websocket';
  status: 'initiated';
  /** Where the client streams the call (one use; within the engine's media timeout). */
  websocketUrl: string;
}

/** A campaign contact's call, as the campaign dialler places it (placement.ts `placeCampaignCall`). */
export interface CampaignCallRequest {
  /** The id the dialler leased the contact with: the call record is made under it. */
  callId: string;
  organisationId: string;
  /** The campaign's creator (null when that user is gone). */
  createdById: string | null;
  campaignId: string;
  agentId: string;
  participantName: string;
  participantNumber: string;
  /** The campaign's dialingNumber; null: the agent's callingNumber. */
  callingNumber: string | null;
  customVariables: Record<string, unknown>;
  maxCallDurationSeconds: number;
  inactivitySeconds: number;
}

/** A browser call placed (POST /voice/session with callType web, POST /widget/voice-session). */
export interface PlacedWebCall {
  success: true;
  roomName: string;
  sessionId: string;
  callType: 'web';
  status: 'initiated';
  /** The participant token: bound to this call, one use, valid for the engine's media timeout (60 s). */
  token: string;
  /** The signalling websocket the browser opens (it carries the token); docs/architecture.md §16. */
  wsUrl: string;
}
