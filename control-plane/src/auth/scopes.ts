/**
 * The scopes of spec document 3; the same list serves API keys and MCP connections. `sip:write` is Parley's own: the
 * spec shows SIP configurations read-only (sip:read), and their writes need a scope of their own.
 */
export const SCOPES = [
  'agents:read',
  'agents:write',
  'campaigns:read',
  'campaigns:write',
  'campaigns:control',
  'calls:read',
  'calls:create',
  'recordings:read',
  'numbers:read',
  'numbers:write',
  'knowledge:read',
  'knowledge:write',
  'wallet:read',
  'wallet:write',
  'billing:read',
  'org:read',
  'org:write',
  'sip:read',
  'sip:write',
  'analytics:read',
  'ai:enhance',
  'webhooks:read',
  'widget:bootstrap',
] as const;

export type Scope = (typeof SCOPES)[number];

/** Every scope a customer key can hold: widget:bootstrap belongs to widget tokens alone. */
export const CUSTOMER_SCOPES: readonly Scope[] = SCOPES.filter((s) => s !== 'widget:bootstrap');

export const WIDGET_SCOPE: Scope = 'widget:bootstrap';

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

export const ROLES = ['OWNER', 'ADMIN', 'EDITOR', 'VIEWER'] as const;
export type Role = (typeof ROLES)[number];
export const MANAGER_ROLES: readonly Role[] = ['OWNER', 'ADMIN'];

/** Roles from most to least powerful. */
const ROLE_RANK: Record<Role, number> = { OWNER: 3, ADMIN: 2, EDITOR: 1, VIEWER: 0 };

/** Whether someone holding `holder` may hand out, or act upon someone holding, `role`: never above their own. */
export function roleAtMost(role: Role, holder: Role): boolean {
  return ROLE_RANK[role] <= ROLE_RANK[holder];
}
