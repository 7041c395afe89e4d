/**
 * Rate limits of spec document 3 (Limits table), per minute. Each can be overridden with PARLEY_RATE_LIMITS.
 * Counters live in each control-plane process; behind a load balancer with N instances a client can reach
 * N times the figure, which is why the defaults sit at the spec's values rather than above them.
 */
export const RATE_LIMIT_DEFAULTS = {
  /** Widget token list/create/revoke, widget bootstrap and voice-session, payment orders: the spec's default. */
  widget: 30,
  /**
   * Chat messages over the widget's HTTP fallback, per client address; the spec gives no figure. A person types a
   * message every few seconds at most: 20 a minute is a fast typist, and stops a script spending the wallet.
   */
  widgetChat: 20,
  /** /telephony routes, per key. */
  telephony: 20,
  /**
   * /telephony sync routes share this sensitive-route budget on top of `telephony`, counted per client address:
   * per key it could never bind, since `telephony` already stops a key at 20.
   */
  telephonySensitive: 30,
  /** carrier-c connect: the spec's "stricter sensitive-route limit", per client address; it gives no figure. */
  telephonyStrict: 10,
  /** /analytics routes, per key and per calling host (client address). */
  analytics: 20,
  /** /ai-enhancement, per IP. */
  aiEnhancementPerIp: 30,
  /** /ai-enhancement, per key. */
  aiEnhancementPerKey: 20,
  /** GET /webhooks/campaign/status, per IP. */
  dialerStatus: 100,
  /** Call placement and call-record creation, per calling host (client address); the spec gives no figure. */
  callPlacement: 60,
  /**
   * The MCP endpoint, per connection (its bearer token); the spec gives no figure. An AI host makes a few requests per
   * user turn; 300 a minute leaves room for a busy agent loop and still stops a runaway one within seconds.
   */
  mcp: 300,
  /**
   * MCP sign-in's dynamic client registration (POST /oauth/register), per client address: open to anyone, so it is
   * bounded; a host registers once per installation, and 20 a minute still lets a whole office connect at once.
   */
  oauthRegistration: 20,
} as const satisfies Record<string, number>;

export type RateLimitName = keyof typeof RATE_LIMIT_DEFAULTS;

/** Length of every rate-limit window: the spec states all limits per minute. */
export const RATE_LIMIT_WINDOW_MS = 60_000;
