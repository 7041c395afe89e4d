/** The messages between the bench (parent) and a server process it forked (see server-process.ts). */

/** Which server a child runs: the real control plane on a bench schema, or the bare Fastify baseline. */
export type ServerSpec =
  | {
      kind: 'real';
      databaseUrl: string;
      schema: string;
      natsUrl: string | undefined;
      poolSize: number;
      /** Per-minute limits to raise for the run (the mcp suite lifts the per-connection MCP limit it would hit at once). */
      rateLimits?: Record<string, number>;
    }
  | { kind: 'baseline'; routes: BaselineRoute[] };

/** One baseline route: `path` answers `body` (the JSON the real app answered), with no auth and no database. */
export interface BaselineRoute {
  /** Default GET; a POST route parses its JSON body as the real one does. */
  method?: 'GET' | 'POST';
  path: string;
  body: unknown;
}

export type ToServer = { type: 'start'; spec: ServerSpec } | { type: 'cpu-usage' } | { type: 'close' };

export type FromServer =
  | { type: 'listening'; url: string }
  | { type: 'failed'; message: string }
  /** CPU time the server process has used so far (user + system, all threads), in microseconds. */
  | { type: 'cpu-usage'; micros: number }
  | { type: 'closed' };
