/** Turns texts into vectors for hybrid search (docs/architecture.md §14); the wire is integrations/embeddings/. */
export interface Embedder {
  /** The model's name, for the start log. */
  readonly model: string;
  /**
   * Cosine similarity below which a nearest chunk is not a match: the nearest chunk always exists, but for a
   * question the documents do not answer it is unrelated. A property of the model (its scale of similarity).
   */
  readonly minSimilarity: number;
  /** One vector per text, in order; `timeoutMs` bounds each request (a live call's query gets a short one). */
  embed(texts: string[], signal: AbortSignal, timeoutMs?: number): Promise<number[][]>;
}
