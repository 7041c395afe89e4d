/** What other workspaces may use of the control plane: its role start function and app builder. */
export { start, type RoleHandle } from './server.ts';
export { buildApp, API_PREFIX, type AppDependencies } from './app.ts';
export { loadConfig, type Config } from './config.ts';
