/**
 * An agent's results (spec document 2, Results): what each call achieved against the agent's resultsConfig. The
 * agent's time zone and resultsConfig are read with this module's own SQL (repository.ts), not through the agents
 * routes.
 */
import { NO_RESULT_OUTCOME, type ResultsConfig } from '@parley/engine/protocol';
import type { Principal } from '../../auth/principal.ts';
import type { Sql } from '../../db/database.ts';
import { badField, notFound, validationError } from '../../errors.ts';
import { exclusiveEnd, parseQueryDate } from '../query-dates.ts';
import type { CsvContext } from './csv-export.ts';
import { useCaseLabel } from './labels.ts';
import * as repository from './results-repository.ts';
import { DEFAULT_RESULTS_PAGE_SIZE, MAX_RESULTS_EXPORT, type ResultsFilters, type ResultsQuery } from './types.ts';

/** Spec: `from` defaults to 30 days before `to`. */
const DEFAULT_RANGE_MS = 30 * 86_400_000;
/** Rows read per query while exporting. */
const EXPORT_BATCH_ROWS = 1_000;

interface Scoped {
  agent: repository.ResultsAgent;
  config: ResultsConfig;
  scope: repository.ResultsScope;
}

export class ResultsService {
  readonly #sql: Sql;
  readonly #publicUrl: string;

  constructor(sql: Sql, publicUrl: string) {
    this.#sql = sql;
    this.#publicUrl = publicUrl;
  }

  async summary(principal: Principal, agentId: string, filters: ResultsFilters) {
    const { config, scope } = await this.#scope(principal, agentId, filters);
    const [totals, useCases] = await Promise.all([
      repository.totals(this.#sql, repository.resultsCondition(scope, { search: false })),
      repository.useCaseCounts(this.#sql, repository.resultsCondition(scope, { search: false, useCase: false })),
    ]);
    const outcomes = [...config.outcomes, NO_RESULT_OUTCOME].map((o) => ({
      key: o.key,
      label: o.label,
      count: totals.outcomes.get(o.key) ?? 0,
    }));
    return {
      calls: totals.calls,
      minutes: Math.round((totals.ms / 60_000) * 100) / 100,
      outcomes,
      fields: config.fields.map((f) => ({
        key: f.key,
        label: f.label,
        type: f.type,
        ...(f.choices ? { choices: f.choices } : {}),
      })),
      useCases: useCases.map((u) => ({ key: u.key, label: useCaseLabel(u.key), count: u.count })),
    };
  }

  async results(principal: Principal, agentId: string, query: ResultsQuery) {
    const { config, scope } = await this.#scope(principal, agentId, query);
    if (query.outcome !== undefined) {
      const known = [...config.outcomes.map((o) => o.key), NO_RESULT_OUTCOME.key];
      if (!known.includes(query.outcome))
        throw badField(
          'outcome',
          `must be an outcome the agent tracks or ${NO_RESULT_OUTCOME.key}: ${known.join(', ')}`,
        );
      scope.outcome = query.outcome;
    }
    const page = query.page ?? 1;
    const pageSize = query.pageSize ?? DEFAULT_RESULTS_PAGE_SIZE;
    const condition = repository.resultsCondition(scope);
    const [total, rows] = await Promise.all([
      repository.count(this.#sql, condition),
      repository.resultRows(this.#sql, condition, { limit: pageSize, offset: (page - 1) * pageSize }),
    ]);
    const labels = outcomeLabels(config);
    const tracked = new Set(config.fields.map((f) => f.key));
    return {
      items: rows.map((row) => ({
        callId: row.id,
        roomName: row.room_name,
        startedAt: row.started_at,
        durationSeconds: row.call_duration === null ? null : Math.round(row.call_duration / 1000),
        contactName: row.participant_name,
        contactPhone: row.phone_number,
        direction: row.call_direction.toLowerCase(),
        source: row.source,
        useCase: row.use_case_key,
        callStatus: row.call_status,
        outcomeKey: row.outcome,
        outcomeLabel: labels.get(row.outcome) ?? row.outcome,
        captured: Object.fromEntries(
          Object.entries(row.agent_result?.captured ?? {}).filter(([key]) => tracked.has(key)),
        ),
        recordingUrl: row.recording_url,
        resultSource: row.agent_result?.resultSource ?? null,
        flowPath: row.agent_result?.flowPath ?? null,
      })),
      total,
      page,
      pageSize,
    };
  }

  /**
   * The export's rows and how to write them, once the range is known to hold at most MAX_RESULTS_EXPORT calls
   * (checked before any byte is sent: a larger range is a 400).
   */
  async export(
    principal: Principal,
    agentId: string,
    filters: ResultsFilters,
  ): Promise<{ context: CsvContext; batches: AsyncGenerator<repository.ResultCallRow[]>; agentName: string }> {
    const { agent, config, scope } = await this.#scope(principal, agentId, filters);
    const condition = repository.resultsCondition(scope);
    const calls = await repository.count(this.#sql, condition);
    if (calls > MAX_RESULTS_EXPORT) {
      throw validationError([
        {
          field: 'from',
          message: `the range holds ${calls} calls; an export holds at most ${MAX_RESULTS_EXPORT}: narrow from/to or add filters`,
        },
      ]);
    }
    return {
      context: {
        fields: config.fields,
        outcomeLabels: outcomeLabels(config),
        timezone: agent.timezone,
        publicUrl: this.#publicUrl,
      },
      batches: repository.resultBatches(this.#sql, condition, EXPORT_BATCH_ROWS),
      agentName: agent.name,
    };
  }

  async defaultAgent(principal: Principal): Promise<{ agentId: string | null }> {
    return { agentId: await repository.defaultAgentId(this.#sql, principal.organisationId) };
  }

  async #scope(principal: Principal, agentId: string, filters: ResultsFilters): Promise<Scoped> {
    const range = dateRange(filters);
    const agent = await repository.resultsAgent(this.#sql, principal.organisationId, agentId);
    if (!agent) throw notFound('Agent');
    const config: ResultsConfig = {
      outcomes: agent.results_config?.outcomes ?? [],
      fields: agent.results_config?.fields ?? [],
    };
    return {
      agent,
      config,
      scope: {
        organisationId: principal.organisationId,
        agentId,
        ...range,
        source: filters.source,
        useCase: filters.useCase,
        search: filters.search,
        trackedOutcomes: config.outcomes.map((o) => o.key),
      },
    };
  }
}

/** [from, to): `to` defaults to now (a bare date includes that day), `from` to 30 days before `to`. */
function dateRange(filters: ResultsFilters): { from: Date; to: Date } {
  const to = filters.to ? exclusiveEnd(parseQueryDate(filters.to, 'to')) : new Date();
  const from = filters.from ? parseQueryDate(filters.from, 'from').at : new Date(to.getTime() - DEFAULT_RANGE_MS);
  if (from.getTime() >= to.getTime()) throw badField('to', 'must be after from');
  return { from, to };
}

function outcomeLabels(config: ResultsConfig): Map<string, string> {
  return new Map([...config.outcomes, NO_RESULT_OUTCOME].map((o) => [o.key, o.label]));
}
