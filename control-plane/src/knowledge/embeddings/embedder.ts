/** Turns texts into vectors for hybrid search (docs/architecture.md §14); one implementation per wire. */
export interface Embedder {
  /** One vector per text, in order. */
  embed(texts: string[], signal: AbortSignal): Promise<number[][]>;
}
