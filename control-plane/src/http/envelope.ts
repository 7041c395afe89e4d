/** The REST response envelope of spec document 1: `success`, `data`, and often a `message`. */
export interface Envelope<T> {
  success: true;
  data: T;
  message?: string;
}

export function ok<T>(data: T, message?: string): Envelope<T> {
  return message === undefined ? { success: true, data } : { success: true, data, message };
}
