/**
 * The parts of campaigns, built once per control-plane process (app.ts) and shared by the routes and the
 * server's background jobs (the dialler and the upload reader, started by server.ts).
 */
import type { AdmissionLimits } from '../billing/call-admission.ts';
import type { Sql } from '../db/database.ts';
import { CampaignControl } from './campaign-control.ts';
import { CampaignService } from './campaign-service.ts';
import { ContactService } from './contact-service.ts';
import { CampaignDialler, type CampaignCallPlacer, type DiallerLog } from './dialler.ts';
import { ContactUploadJob } from './upload-job.ts';

export interface Campaigns {
  service: CampaignService;
  contacts: ContactService;
  control: CampaignControl;
  uploads: ContactUploadJob;
  dialler: CampaignDialler;
}

export interface CampaignsOptions {
  sql: Sql;
  placer: CampaignCallPlacer;
  admission: AdmissionLimits;
  /** The campaigns' clock (dates, windows, cooldowns); default the wall clock. */
  now?: () => Date;
  log?: DiallerLog;
}

export function createCampaigns(options: CampaignsOptions): Campaigns {
  const now = options.now ?? (() => new Date());
  const service = new CampaignService(options.sql, now);
  return {
    service,
    contacts: new ContactService(options.sql, service),
    control: new CampaignControl(options.sql, service, now),
    uploads: new ContactUploadJob(options.sql, options.log),
    dialler: new CampaignDialler(options.sql, options.placer, { admission: options.admission, now, log: options.log }),
  };
}
