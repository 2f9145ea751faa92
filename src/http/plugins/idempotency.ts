import type { FastifyInstance } from 'fastify';
import type { Db } from '../../db/pool.ts';
import type { IdemKey } from '../../domain/idempotency/idempotency.ts';
import { begin, finish, fingerprint, markReplay, validateKey } from '../../domain/idempotency/idempotency.ts';
import { idempotencyTeam } from '../../domain/idempotency/team.ts';

declare module 'fastify' {
  interface FastifyRequest {
    idempotency: IdemKey | null;
  }
}

const HEADER_DOC = {
  in: 'header',
  name: 'Idempotency-Key',
  required: false,
  schema: { type: 'string', minLength: 1, maxLength: 255 },
  description:
    'Makes a retry safe (IETF Idempotency-Key draft). The first successful response is kept 24 h per team ' +
    '(the one the request acts on) and mode: the same key and body replays it with 200 and idempotent_replay: true; ' +
    'another body is 422 idempotency_key_reused; while the first request runs, 409.',
};

type Operation = { parameters?: unknown[] } | undefined;

/** The OpenAPI document's POST and DELETE operations list the header (the layer is global, not per route). */
export function documentIdempotencyKey<T extends { paths?: object }>(doc: T): T {
  for (const item of Object.values(doc.paths ?? {}) as Record<string, Operation>[]) {
    for (const op of [item.post, item.delete]) {
      if (op) op.parameters = [...(op.parameters ?? []), HEADER_DOC];
    }
  }
  return doc;
}

/** Idempotency-Key on every keyed POST and DELETE that sends one (decisions.md §4). */
export function installIdempotency(app: FastifyInstance, db: Db): void {
  app.decorateRequest('idempotency', null);

  app.addHook('preHandler', async (request, reply) => {
    if (request.method !== 'POST' && request.method !== 'DELETE') return;
    const header = request.headers['idempotency-key'];
    if (header === undefined || !request.auth) return;
    const key = Array.isArray(header) ? header.join(',') : header;
    validateKey(key);
    const { organizationId, mode } = request.auth;
    const route = (request.routeOptions.url ?? '').replace(/^\/v1(?=\/)/, '');
    const params = (request.params ?? {}) as Record<string, unknown>;
    const teamId = await idempotencyTeam(db, { organizationId, mode, method: request.method, route, params, body: request.body });
    const k: IdemKey = { organizationId, mode, teamId, key };
    const path = request.url.split('?')[0].replace(/^\/v1(?=\/)/, '');
    const outcome = await begin(db, k, fingerprint(request.method, path, request.body ?? null));
    if (outcome.kind === 'replay') {
      reply.header('Idempotent-Replayed', 'true');
      return reply.code(200).send(markReplay(outcome.body));
    }
    request.idempotency = k;
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const k = request.idempotency;
    if (!k) return payload;
    request.idempotency = null;
    let body: unknown = null;
    if (typeof payload === 'string') {
      try {
        body = JSON.parse(payload);
      } catch {
        body = null;
      }
    }
    await finish(db, k, reply.statusCode, body).catch((err) => request.log.error({ err }, 'idempotency record not saved'));
    return payload;
  });
}
