import type { Db } from '../../db/pool.ts';
import { attemptStats, listAttempts } from '../../db/queries/webhook-deliveries.ts';
import { findWebhook } from '../../db/queries/webhooks.ts';
import type { Scope } from '../../db/queries/webhooks.ts';
import { NotFound } from '../errors.ts';
import { deliveryJson } from './present.ts';

export const DEFAULT_HISTORY_LIMIT = 20;
export const MAX_HISTORY_LIMIT = 100;

export interface HistoryQuery {
  limit: number;
  offset: number;
  success?: boolean;
  eventType?: string;
}

/** GET /webhooks/{id}/deliveries: one record per attempt, newest first. */
export async function listDeliveries(db: Db, scope: Scope, id: string, q: HistoryQuery) {
  if (!(await findWebhook(db, scope, id))) throw new NotFound(`webhook ${id} not found`);
  const status = q.success === undefined ? undefined : q.success ? 'succeeded' : 'failed';
  const { rows, total } = await listAttempts(db, { webhookId: id, limit: q.limit, offset: q.offset, status, eventType: q.eventType });
  return {
    deliveries: rows.map(deliveryJson),
    pagination: { total, limit: q.limit, offset: q.offset, has_more: q.offset + rows.length < total },
  };
}

/** GET /webhooks/{id}/stats (decisions.md §5). */
export async function webhookStats(db: Db, scope: Scope, id: string) {
  const webhook = await findWebhook(db, scope, id);
  if (!webhook) throw new NotFound(`webhook ${id} not found`);
  const s = await attemptStats(db, id);
  const finished = s.succeeded + s.failed;
  return {
    webhook_id: id,
    total_attempts: s.total,
    succeeded: s.succeeded,
    failed: s.failed,
    pending: s.pending,
    // of the finished attempts; null before the first one finishes
    success_rate: finished === 0 ? null : Math.round((s.succeeded / finished) * 10_000) / 10_000,
    last_success_at: s.last_success_at ? s.last_success_at.toISOString() : null,
    last_failure_at: s.last_failure_at ? s.last_failure_at.toISOString() : null,
    consecutive_failures: webhook.consecutive_failures,
    is_active: webhook.is_active,
  };
}
