/** The engine's roles (engine/package.json `exports` "."): what `parley start` runs besides the control plane. */
export type { EngineConfig } from './engine-config.ts';
export type { RoleLog } from './role-log.ts';
export { EngineRole, MEDIA_CONNECT_TIMEOUT_MS, startEngineRole } from './engine-role.ts';
export { startLlmWorkerRole, startSttWorkerRole, startTtsWorkerRole, type WorkerRoleHandle } from './worker-roles.ts';
export { ProviderConfigError } from './provider-factory.ts';
