/**
 * The OAuth error registry (RFC 6749 §5.2, RFC 7591 §3.2.2, RFC 8707 §2): OAuth endpoints answer
 * `{ error, error_description }`, not the REST envelope, because OAuth clients parse exactly that.
 */
export const OAUTH_ERROR_CODES = {
  invalid_request: 400,
  invalid_client: 401,
  invalid_grant: 400,
  unauthorized_client: 400,
  unsupported_grant_type: 400,
  unsupported_response_type: 400,
  invalid_scope: 400,
  invalid_target: 400,
  access_denied: 403,
  invalid_redirect_uri: 400,
  invalid_client_metadata: 400,
  temporarily_unavailable: 503,
} as const satisfies Record<string, number>;

export type OAuthErrorCode = keyof typeof OAUTH_ERROR_CODES;

export class OAuthError extends Error {
  readonly code: OAuthErrorCode;
  constructor(code: OAuthErrorCode, description: string) {
    super(description);
    this.code = code;
  }
  get status(): number {
    return OAUTH_ERROR_CODES[this.code];
  }
  body(): { error: string; error_description: string } {
    return { error: this.code, error_description: this.message };
  }
}
