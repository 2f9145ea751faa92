import type { FastifyInstance } from 'fastify';
import type { Db } from '../../db/pool.ts';
import type { IdemKey } from '../../domain/idempotency/idempotency.ts';
import { begin, finish, fingerprint, markReplay, validateKey } from '../../domain/idempotency/idempotency.ts';
import { idempotencyTeam } from '../../domain/idempotency/team.ts';
import { withoutVersion } from '../access.ts';

declare module 'fastify' {
  interface FastifyRequest {
    idempotency: IdemKey | null;
  }
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
    const route = withoutVersion(request.routeOptions.url ?? '');
    const params = (request.params ?? {}) as Record<string, unknown>;
    const teamId = await idempotencyTeam(db, { organizationId, mode, method: request.method, route, params, body: request.body });
    const k: IdemKey = { organizationId, mode, teamId, key };
    const path = withoutVersion(request.url.split('?')[0]);
    const outcome = await begin(db, k, fingerprint(request.method, path, request.body ?? null));
    if (outcome.kind === 'replay') {
      // Sent as text: the route's 200 schema (where its first answer was 200) would drop the
      // `idempotent_replay` flags the stored body gains here.
      reply.header('Idempotent-Replayed', 'true').type('application/json; charset=utf-8');
      return reply.code(200).send(JSON.stringify(markReplay(outcome.body)));
    }
    request.idempotency = k;
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const k = request.idempotency;
    if (!k) return payload;
    request.idempotency = null;
    // the text as sent, so that a replay keeps its key order; null when it is not JSON (the
    // serializers wrote it: its type says so, and parsing it again only to check was work twice)
    const type = reply.getHeader('content-type');
    const json = typeof payload === 'string' && typeof type === 'string' && type.startsWith('application/json');
    const body = json ? payload : null;
    await finish(db, k, reply.statusCode, body).catch((err) => request.log.error({ err }, 'idempotency record not saved'));
    return payload;
  });
}
