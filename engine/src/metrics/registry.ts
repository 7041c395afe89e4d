/**
 * The process's one metrics registry (docs/architecture.md §19). Every role a process runs registers its metrics
 * here, and every /metrics endpoint the process serves answers from it, so a scrape of any of them sees the whole
 * process: in embedded mode that is every role, in scale-out the one role the process runs.
 *
 * A module-level singleton on purpose: a metric registered twice under one name is an error in prom-client, and a
 * process has one set of counters however many roles it runs.
 */
import { collectDefaultMetrics, Registry } from 'prom-client';

export const metricsRegistry = new Registry();

// Node's own process metrics (CPU seconds, resident memory, event-loop lag, heap): the conventional unprefixed
// names Prometheus dashboards expect (process_cpu_seconds_total, nodejs_eventloop_lag_seconds, …).
collectDefaultMetrics({ register: metricsRegistry });
