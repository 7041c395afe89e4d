/**
 * The campaign dialler (docs/architecture.md §13): a leased background job. Each pass, at its clock's `now`:
 *
 * 1. settles contacts whose call ended (answered → COMPLETED; no_answer, busy, failed → PENDING again after the
 *    cooldown while tries remain, else FAILED) and frees leases an instance that died left behind;
 * 2. moves campaigns: SCHEDULED → IN_PROGRESS on startDate, IN_PROGRESS → COMPLETED when done or past endDate,
 *    and decides each completed campaign's follow-up round (follow-up.ts);
 * 3. for each IN_PROGRESS campaign inside its daily window in its own time zone, between its dates: asks whether the
 *    organisation may call at all (a wallet that cannot pay pauses its campaigns, saying why), how many lines are
 *    free — the plan's concurrentCalls less its live calls, and on each campaign's own line (its carrier number's
 *    cap, or its OUTBOUND SIP configuration's maxConcurrentCalls) that line's limit less its live calls — leases
 *    that many due contacts FOR UPDATE SKIP LOCKED and places each through the one launch path (placement.ts
 *    `placeCampaignCall`), where admission counts the live calls again under the billing row lock and the line's
 *    row lock — so the plan's and the line's limits hold across control planes exactly.
 *
 * The clock is injected: tests drive the dialler through windows, time zones and cooldowns with a simulated one.
 */
import { randomBytes } from 'node:crypto';
import { PollLoop } from '../background/poll-loop.ts';
import { freeLines, type AdmissionLimits } from '../billing/call-admission.ts';
import { callPermission } from '../billing/call-permission.ts';
import type { CampaignCallRequest } from '../calls/launch/types.ts';
import type { Sql } from '../db/database.ts';
import { freeOnLine, outboundLineOf } from '../calls/launch/outbound-line.ts';
import { ApiError } from '../errors.ts';
import { insideWindow, nextOpening } from './call-window.ts';
import { FairSlots } from './fair-slots.ts';
import { decideFollowUp } from './follow-up.ts';
import {
  advanceCampaigns,
  campaignsAwaitingFollowUp,
  callRecorded,
  failContact,
  leaseContacts,
  pauseCampaigns,
  releaseContact,
  releaseLostLeases,
  runningCampaigns,
  settleEndedCalls,
  type LeasedContact,
  type RunningCampaign,
} from './dialler-repository.ts';

/**
 * Between passes, ms: a contact due waits at most this long for its call. A window opening within it is not waited
 * for: the next pass is timed to the opening itself (WINDOW_WAKE_MARGIN_MS after it).
 */
export const DIALLER_INTERVAL_MS = 1_000;
/** A pass timed to a window's opening runs this long after it, ms: timers and clocks may disagree by a millisecond. */
const WINDOW_WAKE_MARGIN_MS = 5;
/**
 * A contact CALLING this long without a call record was leased by an instance that died before recording the call,
 * ms: the engine's dispatch timeout (10 s) and the admission lock's wait, with room.
 */
export const LOST_LEASE_MS = 2 * 60_000;
/**
 * Calls one pass places for one organisation at most, whatever its plan allows: a pass stays short, so every
 * organisation's window opening is served within about a second; a pass that stopped at this cap is followed by
 * the next one at once (`start`).
 */
export const MAX_CALLS_PER_ORGANISATION_PASS = 10;
/**
 * Contacts one pass leases at most, across organisations, before placing them: each organisation gets an equal
 * share (at least 1, at most MAX_CALLS_PER_ORGANISATION_PASS), so the last lease of a pass is placed within seconds
 * of being taken — far inside LOST_LEASE_MS.
 */
export const PASS_LEASE_BUDGET = 200;
/**
 * A lease waiting longer than this for its placement slot is given back rather than placed, ms: well before
 * LOST_LEASE_MS, after which another instance may take the contact again.
 */
const PLACE_WITHIN_MS = LOST_LEASE_MS / 4;
/** Passes run back to back while each stops at the cap, at most this long, ms: then the loop's interval again. */
const BACK_TO_BACK_MS = 5_000;
/**
 * Placements of one campaign's lease running at once: a placement waits on the engine's dispatch and the carrier's
 * create-call request (tens to hundreds of ms), so one at a time would cap a campaign at a few calls per second.
 */
export const PLACEMENTS_AT_ONCE = 8;
/**
 * Placements of a whole pass running at once, across organisations, handed out fairly (fair-slots.ts): each holds a
 * database connection while it is admitted and recorded, so the pass stays well inside the pool (20).
 */
export const PASS_PLACEMENTS_AT_ONCE = 16;
/**
 * Organisations readied at once within a pass (their permission, free lines and lease: a few queries each): one
 * organisation's placements queue on its billing row lock (admission), so another's need not wait behind them, and
 * with every organisation readied early each gets its first call of the pass early (FairSlots).
 */
export const ORGANISATIONS_AT_ONCE = 32;
/** Follow-up decisions one pass makes at most; the rest wait for the next pass. */
const FOLLOW_UPS_PER_PASS = 20;

/** What a pass leased for one organisation, to be placed. */
interface OrganisationLease {
  organisationId: string;
  campaigns: { campaign: RunningCampaign; contacts: LeasedContact[]; lineKey: string | undefined }[];
  /** When the leases were taken (this process's clock), ms. */
  leasedAt: number;
}

export interface CampaignCallPlacer {
  placeCampaignCall(call: CampaignCallRequest): Promise<void>;
}

export type DiallerLog = (level: 'info' | 'warn' | 'error', message: string, detail: object) => void;

export interface DiallerOptions {
  admission: AdmissionLimits;
  /** The dialler's clock; default the wall clock. */
  now?: () => Date;
  intervalMs?: number;
  log?: DiallerLog;
  /** Names this instance on its leases (default a random id). */
  instanceId?: string;
  /**
   * Calls placed at once within a pass (each waits for its engine and carrier); default PLACEMENTS_AT_ONCE. With 1
   * the carrier is asked in the order the contacts were added (tests that script the carrier's answers in order).
   */
  placementsAtOnce?: number;
}

export interface DiallerHealth {
  running: boolean;
  nextRunAt: Date | null;
  lastRunAt: Date | null;
  lastError: string | null;
  callsPlaced: number;
}

export interface PassReport {
  settled: number;
  placed: string[];
  paused: string[];
  moved: { id: string; status: string }[];
  /** Follow-up rounds created this pass: the new campaigns' ids. */
  followUps: string[];
  /**
   * Some organisation had more due contacts and free lines than one pass places for it (its share of
   * PASS_LEASE_BUDGET, at most MAX_CALLS_PER_ORGANISATION_PASS).
   */
  capped: boolean;
}

export class CampaignDialler {
  readonly #sql: Sql;
  readonly #placer: CampaignCallPlacer;
  readonly #options: DiallerOptions;
  readonly #now: () => Date;
  readonly #log: DiallerLog;
  readonly #instance: string;
  readonly #intervalMs: number;
  readonly #placementsAtOnce: number;
  readonly #loop: PollLoop;
  #running = false;
  #lastRunAt: Date | null = null;
  #nextRunAt: Date | null = null;
  #lastError: string | null = null;
  #callsPlaced = 0;
  /** The earliest window opening (the dialler's clock) within an interval of the last pass, if any. */
  #nextOpeningAt: Date | null = null;

  constructor(sql: Sql, placer: CampaignCallPlacer, options: DiallerOptions) {
    this.#sql = sql;
    this.#placer = placer;
    this.#options = options;
    this.#now = options.now ?? (() => new Date());
    this.#log = options.log ?? (() => {});
    this.#instance = options.instanceId ?? `dialler-${randomBytes(4).toString('hex')}`;
    this.#intervalMs = options.intervalMs ?? DIALLER_INTERVAL_MS;
    this.#placementsAtOnce = options.placementsAtOnce ?? PLACEMENTS_AT_ONCE;
    this.#loop = new PollLoop({
      pass: async () => {
        try {
          const until = Date.now() + BACK_TO_BACK_MS;
          while ((await this.runOnce()).capped && this.#running && Date.now() < until);
          this.#lastError = null;
        } finally {
          this.#nextRunAt = new Date(Date.now() + this.#nextDelayMs());
        }
      },
      intervalMs: this.#intervalMs,
      nextDelayMs: () => this.#nextDelayMs(),
      onError: (error) => {
        this.#lastError = error instanceof Error ? error.message : String(error);
        this.#log('error', 'dialler pass failed', { error: this.#lastError });
      },
    });
  }

  start(): this {
    this.#running = true;
    this.#nextRunAt = new Date();
    this.#loop.start();
    return this;
  }

  async stop(): Promise<void> {
    this.#running = false;
    this.#nextRunAt = null;
    await this.#loop.stop();
  }

  /** A campaign was started: a pass now rather than at the next interval. */
  nudge(): void {
    if (this.#running) this.#loop.nudge();
  }

  /** GET /webhooks/campaign/status. */
  health(): DiallerHealth {
    return {
      running: this.#running,
      nextRunAt: this.#nextRunAt,
      lastRunAt: this.#lastRunAt,
      lastError: this.#lastError,
      callsPlaced: this.#callsPlaced,
    };
  }

  /** Until the next pass, ms: the interval, or less when a campaign's window opens sooner. */
  #nextDelayMs(): number {
    if (!this.#nextOpeningAt) return this.#intervalMs;
    const untilOpening = this.#nextOpeningAt.getTime() - this.#now().getTime() + WINDOW_WAKE_MARGIN_MS;
    return Math.max(0, Math.min(this.#intervalMs, untilOpening));
  }

  /** One pass at the clock's now. */
  async runOnce(): Promise<PassReport> {
    const now = this.#now();
    this.#lastRunAt = new Date();
    await releaseLostLeases(this.#sql, LOST_LEASE_MS);
    const settled = await settleEndedCalls(this.#sql, now);
    const moved = await advanceCampaigns(this.#sql, now);
    const report: PassReport = { settled, placed: [], paused: [], moved, followUps: [], capped: false };
    for (const id of await campaignsAwaitingFollowUp(this.#sql, FOLLOW_UPS_PER_PASS)) {
      const decision = await decideFollowUp(this.#sql, id, now);
      if (decision.kind === 'round') report.followUps.push(decision.campaignId);
    }
    // A round created now may be due at once (delayDays 0).
    if (report.followUps.length) report.moved.push(...(await advanceCampaigns(this.#sql, now)));
    const running = (await runningCampaigns(this.#sql, now)).map((c) => ({
      campaign: c,
      window: {
        callStartTime: c.call_start_time,
        callEndTime: c.call_end_time,
        timezone: c.timezone,
        startDate: c.start_date,
        endDate: c.end_date,
      },
    }));
    const open = running.filter((r) => insideWindow(r.window, now)).map((r) => r.campaign);
    // A window opening before the next interval's pass: that pass is timed to the opening instead. Only windows
    // open an interval from now are looked at closely (nextOpening reads the zone's calendar day by day).
    const later = new Date(now.getTime() + this.#intervalMs);
    this.#nextOpeningAt = null;
    for (const { window } of running) {
      if (insideWindow(window, now) || !insideWindow(window, later)) continue;
      const opening = nextOpening(window, now);
      if (opening && (!this.#nextOpeningAt || opening < this.#nextOpeningAt)) this.#nextOpeningAt = opening;
    }
    const byOrganisation = new Map<string, RunningCampaign[]>();
    for (const campaign of open) {
      const list = byOrganisation.get(campaign.organisation_id) ?? [];
      list.push(campaign);
      byOrganisation.set(campaign.organisation_id, list);
    }
    // Every organisation's contacts are leased first, then placed, the pass's placement slots shared fairly between
    // organisations: a window opening for many at once gives each its first call before any gets its second.
    const leased: OrganisationLease[] = [];
    const perOrganisation = Math.max(
      1,
      Math.min(MAX_CALLS_PER_ORGANISATION_PASS, Math.floor(PASS_LEASE_BUDGET / Math.max(1, byOrganisation.size))),
    );
    await eachLimited([...byOrganisation], ORGANISATIONS_AT_ONCE, async ([organisationId, campaigns]) => {
      const lease = await this.#leaseForOrganisation(organisationId, campaigns, now, report, perOrganisation);
      if (lease) leased.push(lease);
    });
    const slots = new FairSlots(PASS_PLACEMENTS_AT_ONCE);
    await Promise.all(leased.map((lease) => this.#placeForOrganisation(lease, now, report, slots)));
    return report;
  }

  /** Leases the organisation's share of due contacts for this pass, within its free lines and each campaign's line. */
  async #leaseForOrganisation(
    organisationId: string,
    campaigns: RunningCampaign[],
    now: Date,
    report: PassReport,
    most: number,
  ): Promise<OrganisationLease | undefined> {
    if (await this.#stopWhenUnpaid(organisationId, now, report)) return undefined;
    const lines = await freeLines(this.#sql, organisationId, this.#options.admission);
    let free = Math.min(most, lines);
    // Lines are shared out across the organisation's campaigns, a few to each in turn.
    const share = Math.max(1, Math.ceil(free / campaigns.length));
    const lease: OrganisationLease = { organisationId, campaigns: [], leasedAt: Date.now() };
    // What each line (carrier number or SIP configuration) still takes this pass: campaigns may share one.
    const lineLeft = new Map<string, number>();
    let leasedInAll = 0;
    for (const campaign of campaigns) {
      if (free <= 0) break;
      const line = await outboundLineOf(this.#sql, organisationId, campaign.voice_agent_id, campaign.calling_number);
      // No line at all: its placement says why and pauses the campaign.
      const lineKey = line && `${line.kind}:${line.id}`;
      if (lineKey && !lineLeft.has(lineKey)) lineLeft.set(lineKey, await freeOnLine(this.#sql, line!));
      const onLine = lineKey ? lineLeft.get(lineKey)! : free;
      const want = Math.min(share, free, campaign.due, onLine);
      if (want <= 0) continue;
      const contacts = await leaseContacts(this.#sql, campaign.id, now, want, this.#instance);
      free -= contacts.length;
      leasedInAll += contacts.length;
      if (lineKey) lineLeft.set(lineKey, onLine - contacts.length);
      if (contacts.length) lease.campaigns.push({ campaign, contacts, lineKey });
    }
    // More to place than one pass places: the next pass follows at once.
    const due = campaigns.reduce((sum, c) => sum + c.due, 0);
    if (leasedInAll >= most && lines > leasedInAll && due > leasedInAll) report.capped = true;
    return lease;
  }

  /** Places what was leased, each call in a slot of the pass; what can no longer be placed goes back untouched. */
  async #placeForOrganisation(lease: OrganisationLease, now: Date, report: PassReport, slots: FairSlots) {
    let stop: 'no-line' | 'unpaid' | undefined;
    const fullLines = new Set<string>();
    // One campaign after another, as they were leased (a test placing one at a time sees them in that order).
    for (const { campaign, contacts, lineKey } of lease.campaigns) {
      let campaignStopped = false;
      const placeOrRelease = async (contact: LeasedContact) => {
        // No line, no money, a campaign that cannot call, or a lease kept waiting too long: it goes back untouched.
        const stale = Date.now() - lease.leasedAt > PLACE_WITHIN_MS;
        if (stop || campaignStopped || (lineKey && fullLines.has(lineKey)) || stale) {
          await releaseContact(this.#sql, contact.id, contact.call_id);
          return undefined;
        }
        return this.#place(campaign, contact);
      };
      await eachLimited(contacts, this.#placementsAtOnce, async (contact) => {
        const outcome = await slots.run(lease.organisationId, () => placeOrRelease(contact));
        if (outcome === 'placed') report.placed.push(contact.call_id);
        else if (outcome === 'no-line' || outcome === 'unpaid') stop ??= outcome;
        else if (outcome === 'campaign-stopped') campaignStopped = true;
        // Another instance took the line's last calls since it was counted: the next pass counts again.
        else if (outcome === 'line-full' && lineKey) fullLines.add(lineKey);
      });
    }
    if (stop === 'unpaid') await this.#stopWhenUnpaid(lease.organisationId, now, report);
  }

  /** Pauses the organisation's campaigns, saying why, when it may not call at all; answers whether it did. */
  async #stopWhenUnpaid(organisationId: string, now: Date, report: PassReport): Promise<boolean> {
    const permission = await callPermission(this.#sql, organisationId);
    if (permission.allowed) return false;
    const reason = `Stopped by the dialler: ${permission.message}`;
    const paused = await pauseCampaigns(this.#sql, { organisationId }, reason, now);
    report.paused.push(...paused);
    if (paused.length)
      this.#log('warn', 'campaigns paused: the organisation may not place calls', { organisationId, paused, reason });
    return true;
  }

  async #place(
    campaign: RunningCampaign,
    contact: LeasedContact,
  ): Promise<'placed' | 'no-line' | 'line-full' | 'unpaid' | 'campaign-stopped' | 'contact-failed'> {
    try {
      await this.#placer.placeCampaignCall({
        callId: contact.call_id,
        organisationId: campaign.organisation_id,
        createdById: campaign.created_by_id,
        campaignId: campaign.id,
        agentId: campaign.voice_agent_id,
        participantName: contact.name ?? '',
        participantNumber: contact.phone,
        callingNumber: campaign.dialing_number,
        customVariables: { ...contact.variables, campaignContactId: contact.id },
        maxCallDurationSeconds: campaign.max_call_duration,
        inactivitySeconds: campaign.inactivity_duration,
      });
      this.#callsPlaced++;
      return 'placed';
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      // A call recorded then not carried out (no engine 503, carrier refusal 502) was finished FAILED by the launch
      // path: the next pass settles it like any failed call (tried again after the cooldown).
      if (await callRecorded(this.#sql, contact.call_id)) {
        this.#log('warn', 'a campaign call failed to start', {
          campaignId: campaign.id,
          callId: contact.call_id,
          error: message,
        });
        return 'placed';
      }
      const code = error instanceof ApiError ? error.code : 'internal';
      if (code === 'forbidden' || code === 'validation_failed') {
        // This number only: outside the caller's calling scope, or not a number a carrier takes.
        await failContact(this.#sql, contact.id, contact.call_id, message);
        return 'contact-failed';
      }
      // Not this contact's fault: it waits for a later pass, the try not counted.
      await releaseContact(this.#sql, contact.id, contact.call_id);
      // The campaign's number or SIP configuration has every line live (counted under its lock at placement).
      if (code === 'limit_reached') return 'line-full';
      if (code === 'payment_required') {
        const permission = await callPermission(this.#sql, campaign.organisation_id);
        return permission.allowed ? 'no-line' : 'unpaid';
      }
      if (code === 'invalid_state' || code === 'not_found') {
        // The agent or the caller number can no longer call: every contact would fail the same way.
        await pauseCampaigns(this.#sql, { campaignId: campaign.id }, `Stopped by the dialler: ${message}`, this.#now());
        this.#log('warn', 'a campaign was paused: it cannot place calls', { campaignId: campaign.id, error: message });
        return 'campaign-stopped';
      }
      this.#log('error', 'a campaign call could not be placed', { campaignId: campaign.id, error: message });
      return 'campaign-stopped';
    }
  }
}

/** Runs `task` over `items`, at most `limit` at once. */
async function eachLimited<T>(items: readonly T[], limit: number, task: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await task(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
