import type { Config } from '../../config.ts';
import type { Db, Pool } from '../../db/pool.ts';
import { transaction } from '../../db/pool.ts';
import type { Scope, WebhookChanges } from '../../db/queries/webhooks.ts';
import * as webhooks from '../../db/queries/webhooks.ts';
import { NotFound, PreconditionFailed, ValidationError } from '../errors.ts';
import { parseEventList } from './events.ts';
import { newWebhookId } from './ids.ts';
import { webhookJson } from './present.ts';
import { encryptSecret, newWebhookSecret } from './secrets.ts';
import { ensureSweeper } from './sweep.ts';
import type { UrlRuleOptions } from './url-rules.ts';
import { VALIDATION_DNS_DEADLINE_MS, checkWebhookUrl } from './url-rules.ts';

export type { Scope };

/** Bounds the fan-out of one event; documented in docs/webhooks.md. */
export const MAX_WEBHOOKS_PER_ORGANIZATION_AND_MODE = 50;
export const MAX_DESCRIPTION_LENGTH = 500;

export interface CreateWebhookInput {
  url: string;
  events: string[];
  description?: string | null;
}

export interface UpdateWebhookInput {
  url?: string;
  events?: string[];
  description?: string | null;
  is_active?: boolean;
}

/** The URL rules as configured, with create and update's own short DNS deadline (url-rules.ts). */
function urlRules(config: Config): UrlRuleOptions {
  return { allowPrivate: config.webhookAllowPrivateTargets, dnsServers: config.dnsServers, dnsDeadlineMs: VALIDATION_DNS_DEADLINE_MS };
}

function checkDescription(description: string | null | undefined): void {
  if (description && description.length > MAX_DESCRIPTION_LENGTH) {
    throw new ValidationError(`description: at most ${MAX_DESCRIPTION_LENGTH} characters`, 'description');
  }
}

async function requireWebhook(db: Db, scope: Scope, id: string) {
  const found = await webhooks.findWebhook(db, scope, id);
  if (!found) throw new NotFound(`webhook ${id} not found`);
  return found;
}

/** Creates a subscription; the answer is the only time its secret is shown. */
export async function createWebhook(db: Pool, scope: Scope, input: CreateWebhookInput, config: Config, now: Date) {
  await checkWebhookUrl(input.url, urlRules(config), 'accept');
  const events = parseEventList(input.events);
  checkDescription(input.description);
  const secret = newWebhookSecret();
  return transaction(db, async (tx) => {
    // Serializes creates of one organization so the count below cannot be raced past, and
    // orders the new subscription against concurrent booking events (src/db/functions/record_events.sql).
    await webhooks.lockSubscriptions(tx, scope, 'exclusive');
    if ((await webhooks.countWebhooks(tx, scope)) >= MAX_WEBHOOKS_PER_ORGANIZATION_AND_MODE) {
      throw new PreconditionFailed(
        'precondition_failed',
        `at most ${MAX_WEBHOOKS_PER_ORGANIZATION_AND_MODE} webhooks per organization and mode`,
      );
    }
    const row = await webhooks.insertWebhook(tx, {
      id: newWebhookId(),
      organization_id: scope.organizationId,
      mode: scope.mode,
      url: input.url,
      events,
      description: input.description ?? null,
      secret_encrypted: encryptSecret(secret, config.webhookSecretKey),
      created_at: now,
    });
    await ensureSweeper(tx, now);
    return { ...webhookJson(row), secret };
  });
}

export async function listWebhooks(db: Db, scope: Scope) {
  return (await webhooks.listWebhooks(db, scope)).map(webhookJson);
}

export async function getWebhook(db: Db, scope: Scope, id: string) {
  return webhookJson(await requireWebhook(db, scope, id));
}

/** PATCH: the URL rules apply again; `is_active: true` clears failure_reason and the failure count. */
export async function updateWebhook(db: Pool, scope: Scope, id: string, input: UpdateWebhookInput, config: Config, now: Date) {
  // Read first so that an unknown id is 404 even when the body would be a 400; the update
  // below checks the scope again itself.
  const current = await requireWebhook(db, scope, id);
  // Unknown fields are ignored (decisions §4), so a body naming none of ours changes nothing: say so.
  if (input.url === undefined && input.events === undefined && input.description === undefined && input.is_active === undefined) {
    throw new ValidationError('body: send at least one of url, events, description, is_active', 'body');
  }
  const changes: WebhookChanges = {};
  if (input.url !== undefined) {
    await checkWebhookUrl(input.url, urlRules(config), 'accept');
    changes.url = input.url;
  } else if (input.is_active === true) {
    // re-enabling: "URL rules apply again" (api-spec), to the stored URL too, which may date
    // from rules since tightened (WEBHOOK_ALLOW_PRIVATE_TARGETS turned off)
    await checkWebhookUrl(current.url, urlRules(config), 'accept');
  }
  if (input.events !== undefined) changes.events = parseEventList(input.events);
  if (input.description !== undefined) {
    checkDescription(input.description);
    changes.description = input.description;
  }
  if (input.is_active !== undefined) {
    changes.is_active = input.is_active;
    if (input.is_active) changes.reset_failures = true;
  }
  return transaction(db, async (tx) => {
    // Activating a subscription or changing what it wants is ordered against booking events as
    // creating one is (src/db/functions/record_events.sql).
    if (changes.is_active || changes.events) await webhooks.lockSubscriptions(tx, scope, 'exclusive');
    const row = await webhooks.updateWebhook(tx, scope, id, changes, now);
    if (!row) throw new NotFound(`webhook ${id} not found`);
    return webhookJson(row);
  });
}

/** Deletes the subscription, its pending messages and its history; queued jobs find nothing and stop. */
export async function deleteWebhook(db: Db, scope: Scope, id: string): Promise<void> {
  if ((await webhooks.deleteWebhook(db, scope, id)) === 0) throw new NotFound(`webhook ${id} not found`);
}

/** A new secret, effective for every attempt made from now on (retries of older events included). */
export async function rotateWebhookSecret(db: Pool, scope: Scope, id: string, config: Config, now: Date) {
  const secret = newWebhookSecret();
  const row = await webhooks.updateWebhook(
    db,
    scope,
    id,
    { secret_encrypted: encryptSecret(secret, config.webhookSecretKey), rotated_at: now },
    now,
  );
  if (!row) throw new NotFound(`webhook ${id} not found`);
  return { id: row.id, secret, rotated_at: row.rotated_at!.toISOString() };
}
