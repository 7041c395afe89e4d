/** Words people read in results: use cases, sources and call statuses. */
import type { CallSource } from '../repository/call-records.ts';

export const UNLABELLED = 'unlabelled';

/** use:<name> → the name; campaign:<id> → "Campaign <id>"; line:<number> → "Line <number>"; unlabelled → "Unlabelled". */
export function useCaseLabel(key: string): string {
  if (key.startsWith('use:')) return key.slice('use:'.length);
  if (key.startsWith('campaign:')) return `Campaign ${key.slice('campaign:'.length)}`;
  if (key.startsWith('line:')) return `Line ${key.slice('line:'.length)}`;
  return 'Unlabelled';
}

export const SOURCE_LABELS: Readonly<Record<CallSource, string>> = {
  campaign: 'Campaign',
  inbound: 'Inbound',
  api: 'API',
  manual: 'Manual',
  widget: 'Widget',
  unknown: 'Unknown',
};

const OUTCOME_CLASS_LABELS: Readonly<Record<string, string>> = {
  answered: 'Answered',
  no_answer: 'No answer',
  busy: 'Busy',
  rejected: 'Rejected',
  voicemail: 'Voicemail',
  failed: 'Failed',
};

const STATUS_LABELS: Readonly<Record<string, string>> = {
  INITIATED: 'In progress',
  RINGING: 'In progress',
  IN_PROGRESS: 'In progress',
  COMPLETED: 'Completed',
  FAILED: 'Failed',
};

/** How the call went, in a word or two: its outcome class when over, else its status. */
export function callStatusLabel(outcomeClass: string | null, callStatus: string | null): string {
  if (outcomeClass) return OUTCOME_CLASS_LABELS[outcomeClass] ?? outcomeClass;
  return callStatus ? (STATUS_LABELS[callStatus] ?? callStatus) : '';
}
