import type { Role, Scope } from './scopes.ts';

/** Who is calling: resolved from an API key or widget token on every authenticated request. */
export interface Principal {
  keyId: string;
  keyName: string;
  kind: 'management' | 'widget';
  organisationId: string;
  /** The key owner: the user who created it. */
  userId: string;
  /** The key owner's role in the organisation (the owner is OWNER even without a membership row). */
  role: Role;
  scopes: readonly Scope[];
  /** Widget tokens only: the chat agent the token is bound to. */
  agentId: string | null;
  /** Organisation feature flags (flow_agents, self_serve_telephony, …). */
  features: readonly string[];
  /** The resource a key issued to an AI host through OAuth is for (its audience); null for keys made by hand. */
  audience: string | null;
}

/** Tells every process to forget cached keys (docs/architecture.md §4 `v1.auth.revoked`). */
export type Revocation = { keyId: string } | { userId: string; organisationId?: string } | { organisationId: string };
