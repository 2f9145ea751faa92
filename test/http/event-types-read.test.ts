import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestApp } from '../helpers/app.ts';
import { startApp } from '../helpers/app.ts';
import { KEYS } from '../helpers/fixtures.ts';

let t: TestApp;
before(async () => {
  t = await startApp();
});
after(async () => t?.close());

describe('GET /v1/event-types', () => {
  it('lists active event types sorted by name, under both names', async () => {
    const res = await t.request('GET', '/v1/event-types', { key: KEYS.secret });
    assert.equal(res.status, 200);
    assert.equal(res.body.success, true);
    assert.deepEqual(
      res.body.event_types.map((e: { name: string }) => e.name),
      ['Intro call', 'Onboarding', 'Planning session'],
    );
    assert.deepEqual(res.body.eventTypes, res.body.event_types);
    assert.equal(res.body.event_types[0].slot_interval, 15);
    assert.equal(res.body.event_types[2].slot_interval, 60, 'slot_interval defaults to duration');
  });

  it('sorts by letter whatever the case or accent, as a reader would', async () => {
    const workload = { prep: 0, meeting: 30, implementation: 0, admin: 0 };
    for (const name of ['Zebra', 'Élan', 'Ärger', 'éclair', 'alpha']) {
      const res = await t.request('POST', '/v1/event-types', {
        key: KEYS.secret,
        body: { team_id: 'team_advisors', name, duration: 30, workload },
      });
      assert.equal(res.status, 201, res.text);
    }
    const res = await t.request('GET', '/v1/event-types', { key: KEYS.secret });
    assert.deepEqual(
      res.body.event_types.map((e: { name: string }) => e.name),
      ['alpha', 'Ärger', 'éclair', 'Élan', 'Intro call', 'Onboarding', 'Planning session', 'Zebra'],
    );
    await t.db.pool.query(`delete from event_types where name in ('Zebra', 'Élan', 'Ärger', 'éclair', 'alpha')`);
  });

  it("never shows another organization's types", async () => {
    const res = await t.request('GET', '/v1/event-types', { key: KEYS.other });
    assert.deepEqual(
      res.body.event_types.map((e: { id: string }) => e.id),
      ['et_globex_demo'],
    );
  });

  it('accepts a publishable key and the unprefixed alias path', async () => {
    const res = await t.request('GET', '/event-types', { key: KEYS.publishableAnyOrigin });
    assert.equal(res.status, 200);
    assert.equal(res.body.event_types.length, 3);
  });
});

describe('GET /v1/event-types/{id}', () => {
  it('returns custom fields in display order', async () => {
    const res = await t.request('GET', '/v1/event-types/et_intro_call', { key: KEYS.secret });
    assert.equal(res.status, 200);
    const fields = res.body.event_type.custom_fields;
    assert.deepEqual(
      fields.map((f: { key: string }) => f.key),
      ['company', 'topic'],
    );
    assert.deepEqual(fields[1].options, ['pensions', 'mortgages', 'other']);
    assert.equal(fields[0].required, true);
  });

  it("is 404 for another organization's type, never 403", async () => {
    const res = await t.request('GET', '/v1/event-types/et_globex_demo', { key: KEYS.secret });
    assert.equal(res.status, 404);
    assert.deepEqual(Object.keys(res.body.error).sort(), ['code', 'message', 'type']);
    assert.equal(res.body.error.type, 'not_found_error');
    assert.equal(res.body.error.code, 'not_found');
  });

  it('is 404 for an unknown id', async () => {
    const res = await t.request('GET', '/v1/event-types/nope', { key: KEYS.secret });
    assert.equal(res.status, 404);
  });
});
