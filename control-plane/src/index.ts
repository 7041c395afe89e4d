/**
 * What other workspaces may use of the control plane (docs/architecture.md §1): its role start function and app builder,
 * and what a harness needs to stand one up on its own database (bench/, tests of other workspaces).
 */
export { start, type RoleHandle } from './server.ts';
export { buildApp, API_PREFIX, type AppDependencies } from './app.ts';
export { loadConfig, type Config } from './config.ts';
export { openDatabase, DEFAULT_POOL_SIZE, type Database, type Sql } from './db/database.ts';
export { migrate } from './db/migrator.ts';
export { newId } from './db/ids.ts';
export { KeyStore } from './auth/key-store.ts';
export { CUSTOMER_SCOPES, type Role, type Scope } from './auth/scopes.ts';
export { provisionOrganisation, type ProvisionedOrganisation } from './accounts/provisioning.ts';
export { insertApiKey } from './auth/api-key-repository.ts';
export { RATE_LIMIT_DEFAULTS } from './rate-limits.ts';
export { persistCallEvent, type PersistOutcome } from './calls/repository/call-event-store.ts';
export { adjustWallet } from './wallet/wallet.ts';
export { walletReplay, unbalancedTransactions } from './wallet/ledger-repository.ts';
export { KeyRing } from './secrets/key-ring.ts';
export { KnowledgeService } from './knowledge/knowledge-service.ts';
export { KnowledgeJob } from './knowledge/knowledge-job.ts';
export { searchKnowledge, type KnowledgeHit } from './knowledge/knowledge-search.ts';
export { CampaignDialler, type CampaignCallPlacer, type DiallerOptions } from './campaigns/dialler.ts';
export type { CampaignCallRequest } from './calls/launch/types.ts';
export { admitCall } from './billing/call-admission.ts';
export { createCall, finishCall } from './calls/repository/call-repository.ts';
