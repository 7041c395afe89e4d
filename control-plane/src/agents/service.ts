/**
 * Agents (spec documents 1–3, Agent and Agents (REST)): create, read, update, list, delete and duplicate, with
 * every rule checked in the transaction that saves, so the organisation's settings, the callback agent and the
 * phone numbers read are the ones the save sees.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Principal } from '../auth/principal.ts';
import type { KeyStore } from '../auth/key-store.ts';
import type { Queryable, Sql } from '../db/database.ts';
import { newId } from '../db/ids.ts';
import { ApiError, notFound, validationError, type FieldProblem } from '../errors.ts';
import type { KeyRing } from '../secrets/key-ring.ts';
import { changedFields, stateForCreate, stateForUpdate } from './agent-changes.ts';
import {
  BUDGET_FIELDS,
  budgetProblems,
  DEFAULT_INSTRUCTION_BUDGET,
  instructionLength,
  ruleProblems,
} from './agent-rules.ts';
import { notify, type AgentListeners } from './events.ts';
import { applyFlowRules, assertFlowAllowed, FLOW_FEATURE, type FlowChange } from './flow-rules.ts';
import { decryptTools, prepareTools } from './function-tools.ts';
import { outboundNumberForCreate, resolveCallingNumber } from './outbound-number.ts';
import { agentRecord, agentState, STATE_FIELDS, type AgentRecord, type AgentState } from './records.ts';
import * as repository from './repository.ts';
import type {
  BudgetQuery,
  CreateAgentBody,
  DuplicateBody,
  GetAgentQuery,
  ListAgentsQuery,
  UpdateAgentBody,
} from './types.ts';
import { DEFAULT_PAGE_SIZE } from './types.ts';

export interface AgentServiceOptions extends AgentListeners {
  /** Encrypts webhook bearer tokens; without it, tokens cannot be saved or read (503). */
  keyRing: KeyRing | undefined;
  keys: KeyStore;
  log: FastifyBaseLogger;
}

export interface AgentPage {
  items: AgentRecord[];
  total: number;
  page: number;
  limit: number;
  totalPages: number;
}

export class AgentService {
  readonly #sql: Sql;
  readonly #options: AgentServiceOptions;

  constructor(sql: Sql, options: AgentServiceOptions) {
    this.#sql = sql;
    this.#options = options;
  }

  async create(principal: Principal, body: CreateAgentBody): Promise<AgentRecord> {
    const organisationId = principal.organisationId;
    const tools =
      body.functionTools === undefined
        ? undefined
        : prepareTools(body.functionTools, this.#options.keyRing, organisationId);
    const next = stateForCreate(body, tools);
    const id = newId();
    await this.#sql.begin(async (tx) => {
      const settings = await this.#settings(tx, organisationId);
      const change: FlowChange = { prev: undefined, next, body, features: settings.features };
      assertFlowAllowed(change);
      await this.#check(tx, organisationId, undefined, next, body, settings.instruction_budget);
      applyFlowRules(change);
      Object.assign(next, outboundNumberForCreate(next, await repository.activePhoneNumbers(tx, organisationId)));
      await repository.insertAgent(tx, { id, organisationId, createdById: principal.userId, state: next });
    });
    const agent = await this.#read(organisationId, id);
    notify(this.#options.onAgentSaved, { kind: 'created', agent, changedFields: [...STATE_FIELDS] }, this.#options.log);
    return agent;
  }

  async get(principal: Principal, id: string, query: GetAgentQuery = {}): Promise<AgentRecord> {
    const agent = await this.#read(principal.organisationId, id);
    if (query.includeTools !== 'decrypted') return agent;
    return {
      ...agent,
      functionTools: decryptTools(agent.functionTools, this.#options.keyRing, principal.organisationId),
    };
  }

  async update(principal: Principal, id: string, body: UpdateAgentBody): Promise<AgentRecord> {
    const organisationId = principal.organisationId;
    const tools =
      body.functionTools === undefined
        ? undefined
        : prepareTools(body.functionTools, this.#options.keyRing, organisationId);
    const changed = await this.#sql.begin(async (tx) => {
      // Locked until commit: two concurrent edits apply one after the other, each counted in version.
      const row = await repository.findAgent(tx, organisationId, id, true);
      if (!row) throw notFound('Agent');
      const prev = agentState(row);
      const next = stateForUpdate(prev, body, tools);
      const settings = await this.#settings(tx, organisationId);
      const change: FlowChange = { prev, next, body, features: settings.features };
      assertFlowAllowed(change);
      await this.#check(tx, organisationId, id, next, body, settings.instruction_budget, prev);
      applyFlowRules(change);
      if (body.callingNumber) {
        next.callingNumber = resolveCallingNumber(
          next.callingNumber,
          next.telephonyProvider,
          await repository.activePhoneNumbers(tx, organisationId),
        );
      }
      const fields = changedFields(prev, next);
      if (fields.length) await repository.updateAgent(tx, id, pick(next, fields));
      return fields;
    });
    const agent = await this.#read(organisationId, id);
    notify(this.#options.onAgentSaved, { kind: 'updated', agent, changedFields: changed }, this.#options.log);
    return agent;
  }

  async list(principal: Principal, query: ListAgentsQuery): Promise<AgentPage> {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const page = query.page ?? 1;
    const { rows, total } = await repository.listAgents(
      this.#sql,
      principal.organisationId,
      { agentType: query.agentType, isActive: query.isActive, search: query.search },
      { limit, offset: (page - 1) * limit },
    );
    return { items: rows.map(agentRecord), total, page, limit, totalPages: Math.ceil(total / limit) };
  }

  async delete(principal: Principal, id: string): Promise<{ deleted: true; id: string }> {
    const organisationId = principal.organisationId;
    const revoked = await this.#sql.begin(async (tx) => {
      if (!(await repository.findAgent(tx, organisationId, id, true))) throw notFound('Agent');
      return repository.deleteAgent(tx, organisationId, id);
    });
    for (const keyId of revoked) await this.#options.keys.revoke({ keyId });
    notify(this.#options.onAgentDeleted, { agentId: id, organisationId }, this.#options.log);
    return { deleted: true, id };
  }

  async duplicate(principal: Principal, id: string, body: DuplicateBody): Promise<AgentRecord> {
    const organisationId = principal.organisationId;
    const copyId = newId();
    await this.#sql.begin(async (tx) => {
      const row = await repository.findAgent(tx, organisationId, id);
      if (!row) throw notFound('Agent');
      const source = agentState(row);
      const settings = await this.#settings(tx, organisationId);
      if (source.flowDefinition !== null && !settings.features.includes(FLOW_FEATURE)) {
        throw new ApiError(
          'feature_disabled',
          'Flow Agents is not enabled for this organisation: an agent with a call flow cannot be copied',
        );
      }
      const next: AgentState = { ...source, name: body.name ?? `${source.name} (copy)` };
      const problems = budgetProblems({ prev: undefined, next, budget: settings.instruction_budget });
      if (problems.length) throw validationError(problems);
      await repository.insertAgent(tx, { id: copyId, organisationId, createdById: principal.userId, state: next });
    });
    const agent = await this.#read(organisationId, copyId);
    notify(
      this.#options.onAgentSaved,
      { kind: 'duplicated', agent, changedFields: [...STATE_FIELDS] },
      this.#options.log,
    );
    return agent;
  }

  async instructionBudget(principal: Principal, query: BudgetQuery) {
    const settings = await this.#settings(this.#sql, principal.organisationId);
    let usage: { agentId: string; used: number; remaining: number } | null = null;
    if (query.agentId) {
      const row = await repository.findAgent(this.#sql, principal.organisationId, query.agentId);
      if (!row) throw notFound('Agent');
      const used = instructionLength(agentState(row));
      usage = { agentId: query.agentId, used, remaining: settings.instruction_budget - used };
    }
    return {
      budget: settings.instruction_budget,
      defaultBudget: DEFAULT_INSTRUCTION_BUDGET,
      countedFields: [...BUDGET_FIELDS],
      usage,
    };
  }

  async flowAgents(principal: Principal) {
    const settings = await this.#settings(this.#sql, principal.organisationId);
    const rows = await repository.flowAgents(this.#sql, principal.organisationId);
    return {
      enabled: settings.features.includes(FLOW_FEATURE),
      agents: rows.map((r) => ({ id: r.id, name: r.name, isActive: r.is_active, updatedAt: r.updated_at })),
    };
  }

  /** The rules that need no flow: those of agent-rules.ts, plus the callback agent and agent type changes. */
  async #check(
    tx: Queryable,
    organisationId: string,
    id: string | undefined,
    next: AgentState,
    body: CreateAgentBody | UpdateAgentBody,
    budget: number,
    prev?: AgentState,
  ): Promise<void> {
    const problems: FieldProblem[] = ruleProblems({ prev, next, body, budget });
    if (body.callbackAgentId && next.callbackAgentId) {
      const type =
        next.callbackAgentId === id ? 'self' : await repository.agentType(tx, organisationId, next.callbackAgentId);
      const message =
        type === 'self'
          ? 'cannot be the agent itself'
          : type === undefined
            ? 'is not an agent of this organisation'
            : type !== 'VOICE'
              ? 'must be a VOICE agent: it places the callbacks'
              : undefined;
      if (message) problems.push({ field: 'callbackAgentId', message });
    }
    if (id && prev?.agentType === 'VOICE' && next.agentType === 'CHAT') {
      const dependants = await repository.callbackDependants(tx, id);
      if (dependants.length) {
        problems.push({
          field: 'agentType',
          message: `must stay VOICE: the agent places callbacks for chat agents ${dependants.join(', ')}`,
        });
      }
    }
    if (
      id &&
      prev?.agentType === 'CHAT' &&
      next.agentType === 'VOICE' &&
      (await repository.activeWidgetTokenIds(tx, id)).length
    ) {
      problems.push({
        field: 'agentType',
        message: 'must stay CHAT while the agent has active widget tokens: revoke them first',
      });
    }
    if (problems.length) throw validationError(problems);
  }

  async #settings(sql: Queryable, organisationId: string): Promise<repository.OrganisationSettings> {
    const settings = await repository.organisationSettings(sql, organisationId);
    if (!settings) throw notFound('Organisation');
    return settings;
  }

  async #read(organisationId: string, id: string): Promise<AgentRecord> {
    const row = await repository.findAgent(this.#sql, organisationId, id);
    if (!row) throw notFound('Agent');
    return agentRecord(row);
  }
}

function pick(state: AgentState, fields: readonly (keyof AgentState)[]): Partial<AgentState> {
  return Object.fromEntries(fields.map((field) => [field, state[field]])) as Partial<AgentState>;
}
