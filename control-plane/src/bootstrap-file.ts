/** The file the first `parley start` writes into the data folder: where it listens and the owner's API key. */
export const BOOTSTRAP_FILE = 'bootstrap.json';

export interface BootstrapFile {
  baseUrl: string;
  apiKey: string;
  organisationId: string;
  userId: string;
}
