/** FLOW agents: validating a flowDefinition, deriving its resultsConfig, and running it during a call. */
export { validateFlow, isFlowDefinition, type FlowProblem, type FlowValidationContext } from './flow-validator.ts';
export { deriveResultsConfig } from './flow-results.ts';
export * from './flow-executor.ts';
