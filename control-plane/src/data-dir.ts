/** Where Parley keeps its files on this machine: PARLEY_DATA_DIR, else `.parley` under the working directory. */
import path from 'node:path';

type Env = Record<string, string | undefined>;

export function dataDirFrom(env: Env): string {
  return path.resolve(env.PARLEY_DATA_DIR?.trim() || '.parley');
}
