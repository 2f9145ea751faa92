import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { listDeliveries, webhookStats } from '../../domain/webhooks/history.ts';
import { createWebhook, deleteWebhook, getWebhook, listWebhooks, rotateWebhookSecret, updateWebhook } from '../../domain/webhooks/manage.ts';
import type { Scope } from '../../domain/webhooks/manage.ts';
import { warnIfDevelopmentKey } from '../../domain/webhooks/secrets.ts';
import { sendTestEvent } from '../../domain/webhooks/test-event.ts';
import type { AppDeps } from '../deps.ts';
import { DateTime, IdParam, errors } from '../schemas/common.ts';
import { CreateWebhookBody, DeliveriesQuery, Delivery, Stats, UpdateWebhookBody, Webhook, WebhookWithSecret, strictBody } from '../schemas/webhook.ts';

const tags = ['webhooks'];
const scopeOf = (auth: { organizationId: string; mode: 'test' | 'live' }): Scope => ({ organizationId: auth.organizationId, mode: auth.mode });

export const webhookRoutes: FastifyPluginAsyncTypebox<{ deps: AppDeps }> = async (app, { deps }) => {
  warnIfDevelopmentKey(deps.config, app.log);

  app.post('/webhooks', {
    schema: {
      tags, summary: 'Create a webhook subscription; the answer shows its signing secret once',
      body: CreateWebhookBody,
      response: { 201: Type.Object({ success: Type.Literal(true), webhook: WebhookWithSecret }), ...errors(400, 422) },
    },
    preValidation: strictBody(CreateWebhookBody),
  }, async (req, reply) => {
    const webhook = await createWebhook(deps.db, scopeOf(req.auth!), req.body, deps.config, deps.now());
    return reply.code(201).send({ success: true as const, webhook });
  });

  app.get('/webhooks', {
    schema: { tags, summary: 'List the webhooks of this organization and mode', response: { 200: Type.Object({ success: Type.Literal(true), webhooks: Type.Array(Webhook) }), ...errors() } },
  }, async (req) => ({ success: true as const, webhooks: await listWebhooks(deps.db, scopeOf(req.auth!)) }));

  app.get('/webhooks/:id', {
    schema: { tags, summary: 'Read a webhook (never its secret)', params: IdParam, response: { 200: Type.Object({ success: Type.Literal(true), webhook: Webhook }), ...errors(404) } },
  }, async (req) => ({ success: true as const, webhook: await getWebhook(deps.db, scopeOf(req.auth!), req.params.id) }));

  app.patch('/webhooks/:id', {
    schema: {
      tags, summary: 'Update a webhook; {is_active: true} re-enables it', params: IdParam, body: UpdateWebhookBody,
      response: { 200: Type.Object({ success: Type.Literal(true), webhook: Webhook }), ...errors(400, 404) },
    },
    preValidation: strictBody(UpdateWebhookBody),
  }, async (req) => ({ success: true as const, webhook: await updateWebhook(deps.db, scopeOf(req.auth!), req.params.id, req.body, deps.config, deps.now()) }));

  app.delete('/webhooks/:id', {
    schema: {
      tags, summary: 'Delete a webhook, its pending deliveries and its history', params: IdParam,
      response: { 200: Type.Object({ success: Type.Literal(true), id: Type.String(), deleted: Type.Literal(true) }), ...errors(404) },
    },
  }, async (req) => {
    await deleteWebhook(deps.db, scopeOf(req.auth!), req.params.id);
    return { success: true as const, id: req.params.id, deleted: true as const };
  });

  app.post('/webhooks/:id/test', {
    schema: {
      tags, summary: 'Queue a BOOKING_CREATED test delivery with sample data (1 per minute per webhook)', params: IdParam,
      response: {
        200: Type.Object({
          success: Type.Literal(true),
          test: Type.Object({ webhook_id: Type.String(), event: Type.String(), event_id: Type.String(), message_id: Type.String() }),
        }),
        ...errors(404),
      },
    },
  }, async (req, reply) => {
    const test = await sendTestEvent(deps.db, scopeOf(req.auth!), req.params.id, deps.now());
    return reply.code(200).send({ success: true as const, test });
  });

  app.post('/webhooks/:id/rotate-secret', {
    schema: {
      tags, summary: 'Replace the signing secret; the new one is shown once and signs every later attempt', params: IdParam,
      response: {
        200: Type.Object({ success: Type.Literal(true), webhook: Type.Object({ id: Type.String(), secret: Type.String(), rotated_at: DateTime }) }),
        ...errors(404),
      },
    },
  }, async (req) => ({ success: true as const, webhook: await rotateWebhookSecret(deps.db, scopeOf(req.auth!), req.params.id, deps.config, deps.now()) }));

  app.get('/webhooks/:id/deliveries', {
    schema: {
      tags, summary: 'Delivery history: one record per attempt, newest first', params: IdParam, querystring: DeliveriesQuery,
      response: {
        200: Type.Object({
          success: Type.Literal(true),
          deliveries: Type.Array(Delivery),
          pagination: Type.Object({ total: Type.Integer(), limit: Type.Integer(), offset: Type.Integer(), has_more: Type.Boolean() }),
        }),
        ...errors(400, 404),
      },
    },
  }, async (req) => {
    const q = req.query;
    const page = await listDeliveries(deps.db, scopeOf(req.auth!), req.params.id, { limit: q.limit, offset: q.offset, success: q.success, eventType: q.event_type });
    return { success: true as const, ...page };
  });

  app.get('/webhooks/:id/stats', {
    schema: { tags, summary: 'Delivery statistics', params: IdParam, response: { 200: Type.Object({ success: Type.Literal(true), stats: Stats }), ...errors(404) } },
  }, async (req) => ({ success: true as const, stats: await webhookStats(deps.db, scopeOf(req.auth!), req.params.id) }));
};
