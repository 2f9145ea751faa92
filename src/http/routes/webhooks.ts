import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { listDeliveries, webhookStats } from '../../domain/webhooks/history.ts';
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhooks,
  rotateWebhookSecret,
  updateWebhook,
} from '../../domain/webhooks/manage.ts';
import type { Scope } from '../../domain/webhooks/manage.ts';
import { warnIfDevelopmentKey } from '../../domain/webhooks/secrets.ts';
import { sendTestEvent } from '../../domain/webhooks/test-event.ts';
import type { AppDeps } from '../deps.ts';
import { DateTime, IdParam, errors, ref } from '../schemas/common.ts';
import {
  CreateWebhookBody,
  DeliveriesQuery,
  DeliveryPage,
  Stats,
  UpdateWebhookBody,
  Webhook,
  WebhookEventName,
  WebhookWithSecret,
  strictBody,
} from '../schemas/webhook.ts';

const tags = ['webhooks'];
const WEBHOOK_ID = 'wh_2b7e151628aed2a6abf71588';
const scopeOf = (auth: { organizationId: string; mode: 'test' | 'live' }): Scope => ({
  organizationId: auth.organizationId,
  mode: auth.mode,
});

export const webhookRoutes: FastifyPluginAsyncTypebox<{ deps: AppDeps }> = async (app, { deps }) => {
  warnIfDevelopmentKey(deps.config, app.log);

  app.post(
    '/webhooks',
    {
      schema: {
        tags,
        operationId: 'createWebhook',
        summary: 'Create a webhook subscription; the answer shows its signing secret once',
        body: ref(CreateWebhookBody),
        response: {
          201: Type.Object(
            { success: Type.Literal(true), webhook: ref(WebhookWithSecret) },
            { description: 'the new webhook, with its secret' },
          ),
          ...errors(400, 422),
        },
      },
      preValidation: strictBody(CreateWebhookBody),
    },
    async (req, reply) => {
      const webhook = await createWebhook(deps.db, scopeOf(req.auth!), req.body, deps.config, deps.now());
      return reply.code(201).send({ success: true as const, webhook });
    },
  );

  app.get(
    '/webhooks',
    {
      schema: {
        tags,
        operationId: 'listWebhooks',
        summary: 'List the webhooks of this organization and mode',
        response: {
          200: Type.Object({ success: Type.Literal(true), webhooks: Type.Array(ref(Webhook)) }, { description: 'every webhook' }),
          ...errors(),
        },
      },
    },
    async (req) => ({ success: true as const, webhooks: await listWebhooks(deps.db, scopeOf(req.auth!)) }),
  );

  app.get(
    '/webhooks/:id',
    {
      schema: {
        tags,
        operationId: 'getWebhook',
        summary: 'Read a webhook (never its secret)',
        params: IdParam,
        response: {
          200: Type.Object({ success: Type.Literal(true), webhook: ref(Webhook) }, { description: 'the webhook' }),
          ...errors(404),
        },
      },
    },
    async (req) => ({ success: true as const, webhook: await getWebhook(deps.db, scopeOf(req.auth!), req.params.id) }),
  );

  app.patch(
    '/webhooks/:id',
    {
      schema: {
        tags,
        operationId: 'updateWebhook',
        summary: 'Update a webhook; {is_active: true} re-enables it',
        params: IdParam,
        body: ref(UpdateWebhookBody),
        response: {
          200: Type.Object({ success: Type.Literal(true), webhook: ref(Webhook) }, { description: 'the updated webhook' }),
          ...errors(400, 404),
        },
      },
      preValidation: strictBody(UpdateWebhookBody),
    },
    async (req) => ({
      success: true as const,
      webhook: await updateWebhook(deps.db, scopeOf(req.auth!), req.params.id, req.body, deps.config, deps.now()),
    }),
  );

  app.delete(
    '/webhooks/:id',
    {
      schema: {
        tags,
        operationId: 'deleteWebhook',
        summary: 'Delete a webhook, its pending deliveries and its history',
        params: IdParam,
        response: {
          200: Type.Object(
            { success: Type.Literal(true), id: Type.String({ examples: [WEBHOOK_ID] }), deleted: Type.Literal(true) },
            { description: 'the webhook is deleted' },
          ),
          ...errors(404),
        },
      },
    },
    async (req) => {
      await deleteWebhook(deps.db, scopeOf(req.auth!), req.params.id);
      return { success: true as const, id: req.params.id, deleted: true as const };
    },
  );

  app.post(
    '/webhooks/:id/test',
    {
      schema: {
        tags,
        operationId: 'testWebhook',
        summary: 'Queue a BOOKING_CREATED test delivery with sample data (1 per minute per webhook)',
        params: IdParam,
        response: {
          200: Type.Object(
            {
              success: Type.Literal(true),
              test: Type.Object({
                webhook_id: Type.String({ examples: [WEBHOOK_ID] }),
                event: ref(WebhookEventName),
                event_id: Type.String({ examples: ['evt_test_4d5e6f708192a3b4c5d6e7f8'] }),
                message_id: Type.String({ examples: ['msg_5e6f708192a3b4c5d6e7f809'] }),
              }),
            },
            { description: 'the test delivery is queued' },
          ),
          ...errors(404),
        },
      },
    },
    async (req, reply) => {
      const test = await sendTestEvent(deps.db, scopeOf(req.auth!), req.params.id, deps.now());
      return reply.code(200).send({ success: true as const, test });
    },
  );

  app.post(
    '/webhooks/:id/rotate-secret',
    {
      schema: {
        tags,
        operationId: 'rotateWebhookSecret',
        summary: 'Replace the signing secret; the new one is shown once and signs every later attempt',
        params: IdParam,
        response: {
          200: Type.Object(
            {
              success: Type.Literal(true),
              webhook: Type.Object({
                id: Type.String({ examples: [WEBHOOK_ID] }),
                secret: Type.String({
                  description: 'the new whsec_ secret, shown only here',
                  examples: ['whsec_3q2+7wAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA='],
                }),
                rotated_at: DateTime,
              }),
            },
            { description: 'the new secret' },
          ),
          ...errors(404),
        },
      },
    },
    async (req) => ({
      success: true as const,
      webhook: await rotateWebhookSecret(deps.db, scopeOf(req.auth!), req.params.id, deps.config, deps.now()),
    }),
  );

  app.get(
    '/webhooks/:id/deliveries',
    {
      schema: {
        tags,
        operationId: 'listWebhookDeliveries',
        summary: 'Delivery history: one record per attempt, newest first',
        params: IdParam,
        querystring: DeliveriesQuery,
        response: {
          200: ref(DeliveryPage, { description: 'a page of delivery attempts' }),
          ...errors(400, 404),
        },
      },
    },
    async (req) => {
      const q = req.query;
      const page = await listDeliveries(deps.db, scopeOf(req.auth!), req.params.id, {
        limit: q.limit,
        offset: q.offset,
        success: q.success,
        eventType: q.event_type,
      });
      return { success: true as const, ...page };
    },
  );

  app.get(
    '/webhooks/:id/stats',
    {
      schema: {
        tags,
        operationId: 'getWebhookStats',
        summary: 'Delivery statistics',
        params: IdParam,
        response: {
          200: Type.Object({ success: Type.Literal(true), stats: ref(Stats) }, { description: 'the statistics' }),
          ...errors(404),
        },
      },
    },
    async (req) => ({ success: true as const, stats: await webhookStats(deps.db, scopeOf(req.auth!), req.params.id) }),
  );
};
