import assert from 'node:assert/strict';
import { it } from 'node:test';
import SerializerSelector from '@fastify/fast-json-stringify-compiler';
import Fastify from 'fastify';
import type { FastifyInstance } from 'fastify';
import { onceEachSerializer } from '../../src/http/serializers.ts';

const Shared = { $id: 'Shared', type: 'object', properties: { a: { type: 'string' } } };
const withB = { type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } } };

it('compiles each distinct response schema once, across plugin contexts, and each route keeps its own', async () => {
  const compiled: unknown[] = [];
  const defaults = SerializerSelector();
  const counting: typeof defaults = (external, options) => {
    const compile = defaults(external, options);
    return (route) => {
      compiled.push(route.schema);
      return compile(route);
    };
  };
  const app = Fastify({ schemaController: { compilersFactory: { buildSerializer: onceEachSerializer(counting) } } });
  app.addSchema(Shared);
  const body = { a: 'x', b: 'y', c: 'z' };
  const routes = async (scope: FastifyInstance) => {
    // equal texts, distinct objects (as every route's error answers are)
    scope.get('/one', { schema: { response: { 200: { $ref: 'Shared' }, 400: { $ref: 'Shared' } } } }, async () => body);
    scope.get('/two', { schema: { response: { 200: { $ref: 'Shared' } } } }, async () => body);
    scope.get('/b', { schema: { response: { 200: withB } } }, async () => body);
  };
  await app.register(routes, { prefix: '/v1' });
  await app.register(routes);
  await app.ready();

  assert.deepEqual(compiled, [{ $ref: 'Shared' }, withB], 'two distinct schemas, two serializers for eight routes and statuses');
  for (const prefix of ['/v1', '']) {
    assert.deepEqual((await app.inject(`${prefix}/one`)).json(), { a: 'x' });
    assert.deepEqual((await app.inject(`${prefix}/two`)).json(), { a: 'x' });
    assert.deepEqual((await app.inject(`${prefix}/b`)).json(), { a: 'x', b: 'y' }, 'a route with another schema is not given the first');
  }
  await app.close();
});

it('a context that sees other shared schemas gets serializers of its own', async () => {
  const app = Fastify({ schemaController: { compilersFactory: { buildSerializer: onceEachSerializer() } } });
  app.addSchema(Shared);
  await app.register(async (scope) => {
    scope.addSchema({ $id: 'Local', type: 'object', properties: { b: { type: 'string' } } });
    scope.get('/local', { schema: { response: { 200: { $ref: 'Local' } } } }, async () => ({ a: 'x', b: 'y' }));
  });
  await app.register(async (scope) => {
    scope.get('/shared', { schema: { response: { 200: { $ref: 'Local' } } } }, async () => ({ a: 'x', b: 'y' }));
  });
  // a sibling context has no 'Local': its route cannot be compiled, and must not borrow the first's
  await assert.rejects(async () => {
    await app.ready();
  }, /Local/);
});
