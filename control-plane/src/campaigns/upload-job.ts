/**
 * Reads uploaded contact files (POST /campaigns/{id}/contacts/upload) in the background: one upload at a time per
 * pass, leased FOR UPDATE SKIP LOCKED so control planes share the queue; the rows go in with the add route's
 * rules (contacts.ts), in batches, so one file of many thousand rows is a few statements. While an upload waits or
 * runs its campaign is busy (409 on deletes, country changes, duplicates and starts).
 */
import { PollLoop } from '../background/poll-loop.ts';
import type { Sql } from '../db/database.ts';
import { addContacts, MAX_REPORTED_INVALID, type InvalidRow } from './contacts.ts';
import { ContactFileError, readContactFile } from './contact-file.ts';
import { findCampaign } from './repository.ts';
import { claimUpload, finishUpload } from './upload-repository.ts';
import { MAX_CONTACTS_PER_ADD } from './types.ts';

/** How often the job looks for uploads when nobody nudged it, ms. */
export const UPLOAD_INTERVAL_MS = 2_000;
/** An upload PROCESSING this long was lost with its instance and is read again, ms (duplicates are skipped). */
export const UPLOAD_LEASE_MS = 5 * 60_000;

export type UploadLog = (level: 'info' | 'warn' | 'error', message: string, detail: object) => void;

export class ContactUploadJob {
  readonly #sql: Sql;
  readonly #log: UploadLog;
  readonly #loop: PollLoop;
  #started = false;

  constructor(sql: Sql, log: UploadLog = () => {}, options: { intervalMs?: number } = {}) {
    this.#sql = sql;
    this.#log = log;
    this.#loop = new PollLoop({
      pass: () => this.runOnce(),
      intervalMs: options.intervalMs ?? UPLOAD_INTERVAL_MS,
      onError: (error) => this.#log('error', 'contact upload pass failed', { error: String(error) }),
    });
  }

  start(): this {
    this.#started = true;
    this.#loop.start();
    return this;
  }

  stop(): Promise<void> {
    return this.#loop.stop();
  }

  /** A new upload was queued: read it now. */
  nudge(): void {
    // A job not started (tests drive `runOnce` themselves) stays idle.
    if (this.#started) this.#loop.nudge();
  }

  /** Reads every waiting upload; answers how many were finished. */
  async runOnce(): Promise<number> {
    let finished = 0;
    for (;;) {
      const upload = await claimUpload(this.#sql, UPLOAD_LEASE_MS);
      if (!upload) return finished;
      finished++;
      try {
        const file = await readContactFile(upload.format, upload.content, upload.mapping);
        const campaign = await findCampaign(this.#sql, upload.campaign_id);
        if (!campaign) continue;
        const totals = { received: 0, added: 0, duplicates: 0, invalid: 0 };
        const invalidRows: InvalidRow[] = [];
        for (let at = 0; at < file.rows.length; at += MAX_CONTACTS_PER_ADD) {
          const batch = file.rows.slice(at, at + MAX_CONTACTS_PER_ADD);
          // Row numbers as a spreadsheet shows them: the header is row 1.
          const added = await addContacts(this.#sql, campaign, batch, at + 2);
          totals.received += added.received;
          totals.added += added.added;
          totals.duplicates += added.duplicates;
          totals.invalid += added.invalid;
          invalidRows.push(...added.invalidRows.slice(0, MAX_REPORTED_INVALID - invalidRows.length));
        }
        await finishUpload(this.#sql, upload, {
          status: 'DONE',
          result: { ...totals, invalidRows, columns: file.columns },
        });
      } catch (error) {
        if (!(error instanceof ContactFileError))
          this.#log('error', 'a contact upload failed', { uploadId: upload.id, error: String(error) });
        const message = error instanceof ContactFileError ? error.message : 'the file could not be read';
        await finishUpload(this.#sql, upload, { status: 'FAILED', error: message });
      }
    }
  }
}
