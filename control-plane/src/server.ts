/**
 * The control-plane role: opens the database, applies migrations, bootstraps a first organisation on an empty
 * database, and serves the HTTP API. `start(config, bus)` is the role contract of docs/architecture.md §2.
 */
import type { Logger } from 'pino';
import type { Bus } from '@parley/engine/bus';
import type { Config } from './config.ts';
import { buildApp } from './app.ts';
import { KeyStore } from './auth/key-store.ts';
import { bootstrapIfEmpty, writeBootstrapFile } from './bootstrap.ts';
import { openDatabase } from './db/database.ts';
import { migrate } from './db/migrator.ts';
import { createMailer } from './integrations/email/mailer.ts';
import { EmailOutboxJob } from './integrations/email/outbox-job.ts';
import { loadKeyRing } from './secrets/load-key-ring.ts';
import { GreetingCache } from './greetings/greeting-cache.ts';
import { CallAnalyst } from './calls/analysis/call-analyst.ts';
import { WorkerPool } from '@parley/engine/clients';
import { CallEventPersister } from './calls/events/call-event-persister.ts';
import { CallSweeper } from './calls/jobs/call-sweeper.ts';
import { ChatIdleSweep } from './chat/chat-idle-sweep.ts';
import { PlanWalletJob } from './billing/plan-wallet-job.ts';
import { CarrierAInventory } from './carriers/carrier-a/inventory.ts';
import { NumberRentalJob } from './telephony/number-rental-job.ts';
import { CarrierCallControl } from './calls/jobs/carrier-call-control.ts';
import { EngineWatch } from './calls/jobs/engine-watch.ts';
import { CallScheduler } from './calls/jobs/call-scheduler.ts';
import { SipInboundResponder } from './calls/jobs/sip-inbound-responder.ts';
import { SipRegistrationResponder, SipRegistrations } from './sip/sip-registrations.ts';
import { SipCallControl } from './calls/jobs/sip-call-control.ts';
import { PostCallAnalysisJob } from './calls/analysis/post-call-job.ts';
import { KnowledgeJob } from './knowledge/knowledge-job.ts';
import { KbSearchResponder } from './knowledge/kb-search-responder.ts';
import { chooseSearchMode } from './knowledge/search-mode.ts';
import { watchJobLag } from './observability/job-lag-metrics.ts';

/** Time allowed for in-flight requests to finish on shutdown before connections are cut. */
const SHUTDOWN_GRACE_MS = 10_000;

export interface RoleHandle {
  readonly role: string;
  /** Base URL the role serves, when it serves HTTP. */
  readonly url?: string;
  close(): Promise<void>;
}

export async function start(config: Config, bus: Bus, log: Logger): Promise<RoleHandle> {
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    schema: config.databaseSchema,
    dataDir: config.dataDir,
  });
  const closers: (() => Promise<void> | void)[] = [() => database.close()];
  const closeAll = async () => {
    for (const close of closers.reverse()) await close();
  };
  try {
    const applied = await migrate(database.sql, database.schema);
    log.info({ database: database.description, schema: database.schema, applied }, 'database ready');

    const bootstrapped = await bootstrapIfEmpty(database.sql, config.bootstrapCreditMinor);

    const keys = new KeyStore(database.sql, bus, (error) => log.error({ err: error }, 'key store'));
    keys.listen();
    closers.push(() => keys.close());
    const mailer = createMailer({ smtpUrl: config.smtpUrl, from: config.mailFrom, log });
    closers.push(() => mailer.close());
    const outbox = new EmailOutboxJob(database.sql, mailer, log.child({ job: 'email-outbox' }));
    outbox.start();
    closers.push(() => outbox.stop());

    const greetingLog = log.child({ job: 'greeting-cache' });
    const greetings = new GreetingCache(database.sql, bus, (level, message, detail) =>
      greetingLog[level](detail, message),
    ).listen();
    closers.push(() => greetings.close());

    // After the call (docs/architecture.md §3 step 6): the engines' events persisted, lost calls finished, calls analysed.
    const sweeperLog = log.child({ job: 'call-sweeper' });
    const sweeper = new CallSweeper(database.sql, bus, (level, message, detail) =>
      sweeperLog[level](detail, message),
    ).start();
    closers.push(() => sweeper.stop());
    // Chat conversations have no hang-up: those left idle end, and are analysed like calls (docs/architecture.md §15).
    const chatSweepLog = log.child({ job: 'chat-idle-sweep' });
    const chatSweep = new ChatIdleSweep(database.sql, (level, message, detail) =>
      chatSweepLog[level](detail, message),
    ).start();
    closers.push(() => chatSweep.stop());
    // Plan billing's clock (docs/architecture.md §10): allowances every 30 days, lapsed money moved out.
    const planWalletLog = log.child({ job: 'plan-wallet' });
    const planWallets = new PlanWalletJob(database.sql, (level, message, detail) =>
      planWalletLog[level](detail, message),
    ).start();
    closers.push(() => planWallets.stop());
    // Rented managed numbers (docs/architecture.md §10): renewed monthly from the plan wallet, given back unpaid.
    const serviceRentals = carrierAServiceRentals(config);
    if (serviceRentals) {
      const rentalLog = log.child({ job: 'number-rentals' });
      const rentals = new NumberRentalJob(database.sql, serviceRentals, (level, message, detail) =>
        rentalLog[level](detail, message),
      ).start();
      closers.push(() => rentals.stop());
    }
    // The workers alive on the bus: whether a language model is there, as the engines decide it (docs/architecture.md §2).
    const workerPool = WorkerPool.watch(bus);
    closers.push(() => workerPool.stop());
    const postCall = new PostCallAnalysisJob(
      database.sql,
      new CallAnalyst(bus),
      log.child({ job: 'post-call-analysis' }),
      {
        // Configured here (as before), or an llm worker alive on the bus: only the workers need the model's settings.
        languageModel: async () => config.engine.llm !== undefined || (await workerPool.hasLanguageModel()),
      },
    ).start();
    closers.push(() => postCall.stop());

    // Knowledge bases (docs/architecture.md §14): uploads processed in the background; search hybrid or full text.
    const searchMode = await chooseSearchMode(database.sql, config.embeddings);
    log.info({ mode: searchMode.description }, `knowledge search: ${searchMode.description}`);
    const embedder = searchMode.embedder;
    const knowledge = new KnowledgeJob(database.sql, log.child({ job: 'knowledge' }), { embedder }).start();
    closers.push(() => knowledge.stop());
    // Engines' knowledge_search and product_search (v1.kb.search).
    const knowledgeLog = log.child({ job: 'knowledge-search' });
    const kbSearch = new KbSearchResponder(
      database.sql,
      bus,
      (level, message, detail) => knowledgeLog[level](detail, message),
      { embedder },
    ).listen();
    closers.push(() => kbSearch.close());

    // docs/architecture.md §19: the leased jobs' lag in this process's /metrics.
    closers.push(watchJobLag(database.sql));

    const secrets = await loadKeyRing(config);
    const app = await buildApp({
      config,
      sql: database.sql,
      bus,
      keys,
      logger: log,
      onMailQueued: () => outbox.wake(),
      secrets,
      agentListeners: greetings.agentListeners(),
      // The engines' truth (docs/architecture.md §2): a PROMPT call has a model when an llm worker announces one.
      languageModel: () => workerPool.hasLanguageModel(),
      recordingsDir: config.engine.recordingsDir,
      recordingsBucket: config.engine.recordingsBucket,
      onKnowledgeQueued: () => knowledge.wake(),
      knowledgeEmbedder: embedder,
    });
    closers.push(() => closeWithin(app.close(), SHUTDOWN_GRACE_MS));

    // Phone calls (docs/architecture.md §3): scheduled calls placed when due; engines' transfers and ends carried to the carriers;
    // the engines' events persisted. The persister starts after the app, whose carrier control it tells.
    const phoneLog = log.child({ job: 'phone-calls' });
    const logPhone = (level: 'info' | 'warn' | 'error', message: string, detail: object) =>
      phoneLog[level](detail, message);
    const carrierControl = new CarrierCallControl(app.phoneCalls.carrierCalls, logPhone).listen(bus);
    closers.push(() => carrierControl.close());
    // Engines' heartbeats (docs/architecture.md §18): a killed engine's calls finished within seconds.
    const engineWatchLog = log.child({ job: 'engine-watch' });
    const engineWatch = new EngineWatch(
      database.sql,
      bus,
      (level, message, detail) => engineWatchLog[level](detail, message),
      { hangUpCarrier: (callId) => carrierControl.hangUp(callId) },
    ).start();
    closers.push(() => engineWatch.stop());
    // SIP trunks (docs/architecture.md §12): the gateways' INVITEs routed to agents.
    const sipInbound = new SipInboundResponder(app.phoneCalls.sipCalls, logPhone).listen(bus);
    closers.push(() => sipInbound.close());
    // …and the trunks they REGISTER with, and how each registration stands.
    const sipRegistrations = new SipRegistrationResponder(
      new SipRegistrations(database.sql, secrets, logPhone),
      logPhone,
    ).listen(bus);
    closers.push(() => sipRegistrations.close());
    const sipControl = new SipCallControl(database.sql, bus, logPhone);
    closers.push(() => sipControl.close());
    const scheduler = new CallScheduler(database.sql, app.phoneCalls.placement, logPhone).start();
    closers.push(() => scheduler.stop());
    // Campaigns (docs/architecture.md §13): contact files read, contacts dialled inside their windows.
    app.campaigns.uploads.start();
    closers.push(() => app.campaigns.uploads.stop());
    app.campaigns.dialler.start();
    closers.push(() => app.campaigns.dialler.stop());
    const callLog = log.child({ job: 'call-events' });
    const persister = new CallEventPersister(
      database.sql,
      (level, message, detail) => callLog[level](detail, message),
      {
        onApplied: (callId, event) => {
          carrierControl.onEventApplied(callId, event);
          sipControl.onEventApplied(callId, event);
        },
      },
    ).listen(bus);
    closers.push(() => persister.close());
    await app.listen({ port: config.port, host: config.host });
    const url = `http://127.0.0.1:${config.port}`;

    if (bootstrapped) {
      const file = await writeBootstrapFile(config.dataDir, {
        baseUrl: config.publicUrl,
        apiKey: bootstrapped.apiKey.key,
        organisationId: bootstrapped.organisationId,
        userId: bootstrapped.userId,
      });
      process.stdout.write(
        `\nFirst start: created organisation ${bootstrapped.organisationId} and its owner.\n` +
          `API key (shown once, also saved to ${file}):\n\n  ${bootstrapped.apiKey.key}\n\n`,
      );
    }
    // Greetings a stop cut short are synthesised again, once the TTS workers (maybe this process's own) are up.
    void greetings.resume().catch((error: unknown) => greetingLog.warn({ err: error }, 'greeting resume failed'));
    return { role: 'control-plane', url, close: closeAll };
  } catch (error) {
    await closeAll().catch(() => {});
    throw error;
  }
}

async function closeWithin(closing: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    closing,
    new Promise((resolve) => {
      timer = setTimeout(resolve, ms);
    }),
  ]);
  clearTimeout(timer);
}

/** The service's carrier-a account for renting managed numbers, when its id, token and API URL are all configured. */
function carrierAServiceRentals(config: Config): CarrierAInventory | undefined {
  const baseUrl = config.carrierApiUrls['carrier-a'];
  const { carrierAServiceAuthId: authId, carrierAServiceAuthToken: authToken } = config;
  if (!baseUrl || !authId || !authToken) return undefined;
  return new CarrierAInventory({ baseUrl, credentials: { authId, authToken } });
}
