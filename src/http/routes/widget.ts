import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ValidationError } from '../../domain/errors.ts';
import { IdParam } from '../schemas/common.ts';
import { EMBED_ETAG, EMBED_JS, PAGE_CSP, bookingPage } from '../widget/page.ts';

/**
 * The booking widget (decisions §9): GET /embed.js defines <booking-widget>, GET /book/{id}?key=pk_...
 * is a page holding one. Neither needs a key: the widget calls the API with the publishable key.
 */
const PageQuery = Type.Object({ key: Type.String({ minLength: 1, maxLength: 300, description: 'a publishable key' }) });
const PUBLISHABLE_KEY = /^pk_(test|live)_[A-Za-z0-9_-]{1,200}$/;

export const widgetRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/embed.js', { schema: { hide: true } }, async (req, reply) => {
    reply
      .header('Cache-Control', 'public, max-age=300')
      .header('ETag', EMBED_ETAG)
      // any site may load it (a module script or a crossorigin attribute asks for CORS)
      .header('Access-Control-Allow-Origin', '*')
      .header('Cross-Origin-Resource-Policy', 'cross-origin')
      .header('X-Content-Type-Options', 'nosniff');
    if (req.headers['if-none-match'] === EMBED_ETAG) return reply.code(304).send();
    return reply.type('text/javascript; charset=utf-8').send(EMBED_JS);
  });

  app.get('/book/:id', { schema: { hide: true, params: IdParam, querystring: PageQuery } }, async (req, reply) => {
    if (!PUBLISHABLE_KEY.test(req.query.key)) {
      // a secret key in a page would be readable by every visitor
      throw new ValidationError('query parameter "key" must be a publishable key (pk_test_... or pk_live_...), never a secret key', 'key');
    }
    return reply
      .type('text/html; charset=utf-8')
      .header('Content-Security-Policy', PAGE_CSP)
      .header('X-Content-Type-Options', 'nosniff')
      .header('Cache-Control', 'no-cache')
      .send(bookingPage(req.params.id, req.query.key));
  });
};
