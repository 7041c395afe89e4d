/** Every webhook the processor delivered, signed or not (migration 010 `payment_webhook_events`). The only SQL for them. */
import type { Queryable } from '../db/database.ts';
import { newId } from '../db/ids.ts';

export interface WebhookEventRecord {
  gateway: string;
  /** The processor's id of the event (the same on each redelivery); null when it sent none. */
  eventId: string | null;
  eventType: string | null;
  signatureValid: boolean;
  outcome: string;
  payload: unknown;
}

/**
 * Records one delivery. A signed event whose id was recorded before is not recorded again: false, so the caller
 * knows another delivery of it took (or is taking) effect.
 */
export async function recordWebhookEvent(sql: Queryable, event: WebhookEventRecord): Promise<boolean> {
  const rows = await sql`
    insert into payment_webhook_events (id, gateway, event_id, event_type, signature_valid, outcome, payload)
    values (${newId()}, ${event.gateway}, ${event.eventId}, ${event.eventType}, ${event.signatureValid},
            ${event.outcome}, ${event.payload === null ? null : sql.json(event.payload as never)})
    on conflict (gateway, event_id) where signature_valid and event_id is not null do nothing
    returning id`;
  return rows.length === 1;
}
