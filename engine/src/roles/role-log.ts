/** How roles report what they do: a message and structured detail, routed by the caller to its logger. */
export type RoleLog = (event: string, detail?: object) => void;
