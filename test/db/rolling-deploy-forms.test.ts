import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type pg from 'pg';
import type { TestApp } from '../helpers/app.ts';
import { startApp } from '../helpers/app.ts';
import { KEYS } from '../helpers/fixtures.ts';
import { NOW, introBody } from '../http/bookings-helpers.ts';

// Migration 086 made metadata and event payloads `json`, and create_booking and record_events take
// them as text in a JSON string. The release before sends them as objects; until its processes are
// gone, both write against one database (docs/operations.md, "Rolling deploys").
let t: TestApp;
before(async () => {
  t = await startApp({ now: NOW });
});
after(async () => {
  await t.close();
});

describe('the call forms of the release before migration 086', () => {
  it('create_booking takes the metadata and the payload as objects, and stamps the payload by path', async () => {
    const pool = t.db.pool;
    const query = pool.query.bind(pool) as (config: pg.QueryConfig | string, values?: unknown[]) => Promise<pg.QueryResult>;
    let rewritten = 0;
    // the service's own call, its arguments put back in the previous release's form
    (pool as unknown as { query: unknown }).query = (config: pg.QueryConfig | string, values?: unknown[]) => {
      if (typeof config === 'object' && config.text.includes('from create_booking(') && config.values) {
        const old = [...config.values];
        const booking = JSON.parse(old[0] as string);
        old[0] = JSON.stringify({ ...booking, metadata: JSON.parse(booking.metadata) });
        old[8] = JSON.parse(old[8] as string)
          .replaceAll('"\\u0000created_at\\u0000"', '"2000-01-01T00:00:00.000Z"')
          .replaceAll('"\\u0000updated_at\\u0000"', '"2000-01-01T00:00:00.000Z"');
        rewritten++;
        return query({ ...config, name: undefined, values: old });
      }
      return query(config, values);
    };
    try {
      const res = await t.request('POST', '/v1/bookings', {
        key: KEYS.secret,
        body: introBody('2026-12-16T10:00:00Z', { metadata: { b: 1, a: [2] } }),
      });
      assert.equal(res.status, 201, res.text);
      assert.equal(rewritten, 1);
      assert.deepEqual(res.body.booking.metadata, { b: 1, a: [2] });
      const event = await pool.query(`select payload from booking_events where booking_id = $1`, [res.body.booking.id]);
      const payload = event.rows[0].payload;
      assert.equal(payload.data.created_at, res.body.booking.created_at, "the database's clock, set by path");
      assert.equal(payload.timestamp, res.body.booking.updated_at);
      assert.deepEqual(payload.data.metadata, { b: 1, a: [2] });
    } finally {
      (pool as unknown as { query: unknown }).query = query;
    }
  });

  it('record_events takes a payload as an object or as its text in a JSON string', async () => {
    const res = await t.request('POST', '/v1/bookings', { key: KEYS.secret, body: introBody('2026-12-16T11:00:00Z') });
    assert.equal(res.status, 201, res.text);
    const { id } = res.body.booking;
    const org = (await t.db.pool.query(`select organization_id from bookings where id = $1`, [id])).rows[0].organization_id;
    const text = '{"event":"BOOKING_UPDATED","timestamp":"2026-12-01T06:00:00.000Z","data":{"id":"x","metadata":{"zz":1.0,"a":2}}}';
    await t.db.pool.query(
      `select * from record_events(array['evt_object', 'evt_text'], array[$1, $1], array['test', 'test'], array[$2, $2],
                                   array['BOOKING_UPDATED', 'BOOKING_UPDATED'], array[$3::jsonb, to_jsonb($4::text)], array[]::text[])`,
      [org, id, text, text],
    );
    const stored = await t.db.pool.query(
      `select id, payload::text as p from booking_events where id in ('evt_object', 'evt_text') order by id`,
    );
    assert.deepEqual(JSON.parse(stored.rows[0].p), JSON.parse(text), 'the object, as jsonb writes it');
    assert.equal(stored.rows[1].p, text, 'the text, as written');
  });
});
