import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestApp } from '../helpers/app.ts';
import { startApp } from '../helpers/app.ts';
import { KEYS, MEMBERS } from '../helpers/fixtures.ts';
import { insertBooking, keyWith } from '../domain/availability/scheduling-fixtures.ts';

const NOW = new Date('2026-11-23T09:00:00Z');
let t: TestApp;
let readOnlyWriteless: string;
before(async () => {
  t = await startApp({ now: NOW });
  readOnlyWriteless = await keyWith(t.db.pool, ['event-types:read']);
});
after(async () => t?.close());

const WORKLOAD = { prep: 5, meeting: 30, implementation: 0, admin: 5 };
const post = (body: unknown, key: string = KEYS.secret) => t.request('POST', '/v1/event-types', { key, body });
const patch = (id: string, body: unknown, key: string = KEYS.secret) => t.request('PATCH', `/v1/event-types/${id}`, { key, body });
const del = (id: string, key: string = KEYS.secret) => t.request('DELETE', `/v1/event-types/${id}`, { key });
const minimal = (extra: Record<string, unknown> = {}) => ({
  team_id: 'team_advisors',
  name: 'Quick chat',
  duration: 20,
  workload: WORKLOAD,
  ...extra,
});

describe('POST /v1/event-types', () => {
  it('creates with the documented defaults', async () => {
    const res = await post(minimal({ name: 'Café Consult' }));
    assert.equal(res.status, 201);
    const e = res.body.event_type;
    assert.match(e.id, /^et_/);
    assert.equal(e.slug, 'cafe-consult');
    assert.equal(e.slot_interval, 20);
    assert.equal(e.buffer_before, 0);
    assert.equal(e.buffer_after, 0);
    assert.equal(e.minimum_booking_notice, 0);
    assert.equal(e.mode, 'SIMPLE');
    assert.equal(e.is_active, true);
    assert.equal(e.is_personal, false);
    assert.equal(e.host_ids, null, 'null = every active member of the team');
    assert.equal(e.scheduling_type, 'SOLO');
    assert.deepEqual(e.custom_fields, []);
    assert.ok(e.created_at && e.updated_at);
    const read = await t.request('GET', `/v1/event-types/${e.id}`, { key: KEYS.publishableAnyOrigin });
    assert.equal(read.status, 200);
    assert.equal(read.body.event_type.name, 'Café Consult');
  });

  it("makes a fresh slug when the name's slug is taken, but 409s an explicit one", async () => {
    const a = await post(minimal({ name: 'Intro Call' }));
    assert.equal(a.status, 201);
    assert.equal(a.body.event_type.slug, 'intro-call-2');
    const b = await post(minimal({ slug: 'intro-call' }));
    assert.equal(b.status, 409);
    assert.equal(b.body.error.code, 'conflict');
    assert.match(b.body.error.message, /slug/);
  });

  it('409 for an external_id that exists; another organization may reuse it', async () => {
    assert.equal((await post(minimal({ name: 'Ext one', external_id: 'crm-1' }))).status, 201);
    const dup = await post(minimal({ name: 'Ext two', external_id: 'crm-1' }));
    assert.equal(dup.status, 409);
    assert.match(dup.body.error.message, /external_id/);
    const other = await post({ ...minimal({ name: 'Ext', external_id: 'crm-1' }), team_id: 'team_globex' }, KEYS.other);
    assert.equal(other.status, 201);
  });

  it('takes custom fields in display order, hosts, a personal owner and every optional field', async () => {
    const res = await post(
      minimal({
        name: 'Full',
        slug: 'full-type',
        description: 'All the things',
        slot_interval: 10,
        buffer_before: 5,
        buffer_after: 15,
        minimum_booking_notice: 60,
        scheduling_type: 'COLLECTIVE',
        requires_confirmation: true,
        is_personal: true,
        owner_id: MEMBERS.amara,
        host_ids: [MEMBERS.jonas, MEMBERS.amara],
        custom_fields: [
          { key: 'size', label: 'Team size', type: 'NUMBER', required: true },
          { key: 'plan', label: 'Plan', type: 'SELECT', options: ['basic', 'pro'] },
        ],
      }),
    );
    assert.equal(res.status, 201);
    const e = res.body.event_type;
    assert.deepEqual(e.host_ids, [MEMBERS.jonas, MEMBERS.amara]);
    assert.equal(e.owner_id, MEMBERS.amara);
    assert.equal(e.requires_confirmation, true);
    assert.deepEqual(
      e.custom_fields.map((f: { key: string; order: number }) => [f.key, f.order]),
      [
        ['size', 0],
        ['plan', 1],
      ],
    );
    assert.deepEqual(e.custom_fields[1].options, ['basic', 'pro']);
  });

  describe('400 naming the field', () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ['missing team_id', { team_id: undefined }, 'team_id'],
      ['missing name', { name: undefined }, 'name'],
      ['missing duration', { duration: undefined }, 'duration'],
      ['missing workload', { workload: undefined }, 'workload'],
      ['duration 0', { duration: 0 }, 'duration'],
      ['duration over a day', { duration: 1441 }, 'duration'],
      ['fractional duration', { duration: 1.5 }, 'duration'],
      ['negative buffer_before', { buffer_before: -1 }, 'buffer_before'],
      ['negative buffer_after', { buffer_after: -5 }, 'buffer_after'],
      ['slot_interval too small', { slot_interval: 2 }, 'slot_interval'],
      ['slot_interval too large', { slot_interval: 2000 }, 'slot_interval'],
      ['negative notice', { minimum_booking_notice: -1 }, 'minimum_booking_notice'],
      ['workload.meeting 0', { workload: { ...WORKLOAD, meeting: 0 } }, 'workload.meeting'],
      ['workload.prep negative', { workload: { ...WORKLOAD, prep: -1 } }, 'workload.prep'],
      ['bad scheduling_type', { scheduling_type: 'RANDOM' }, 'scheduling_type'],
      ['bad slug', { slug: 'Not A Slug' }, 'slug'],
      ['empty name', { name: '' }, 'name'],
      ['is_personal without owner', { is_personal: true }, 'owner_id'],
      ['owner in another team', { owner_id: MEMBERS.priya }, 'owner_id'],
      ['owner of another organization', { owner_id: MEMBERS.otherOrg }, 'owner_id'],
      ['owner not a uuid', { owner_id: 'amara' }, 'owner_id'],
      ['host of another organization', { host_ids: [MEMBERS.otherOrg] }, 'host_ids[0]'],
      ['host in another team', { host_ids: [MEMBERS.amara, MEMBERS.priya] }, 'host_ids[1]'],
      ['empty host list', { host_ids: [] }, 'host_ids'],
      ['unknown custom field type', { custom_fields: [{ key: 'a', label: 'A', type: 'COLOR' }] }, 'custom_fields[0].type'],
      ['SELECT without options', { custom_fields: [{ key: 'a', label: 'A', type: 'SELECT' }] }, 'custom_fields[0].options'],
      [
        'duplicate custom field key',
        {
          custom_fields: [
            { key: 'a', label: 'A', type: 'TEXT' },
            { key: 'a', label: 'B', type: 'TEXT' },
          ],
        },
        'custom_fields[1].key',
      ],
    ];
    for (const [name, extra, field] of cases) {
      it(name, async () => {
        const res = await post(minimal({ name: `Bad ${name}`, ...extra }));
        assert.equal(res.status, 400, JSON.stringify(res.body));
        assert.equal(res.body.error.code, 'validation_error');
        assert.equal(res.body.error.field, field);
        assert.ok(res.body.error.message.includes(`"${field}"`), res.body.error.message);
      });
    }
    it('nothing was created by the refused requests', async () => {
      const list = await t.request('GET', '/v1/event-types', { key: KEYS.secret });
      assert.ok(!list.body.event_types.some((e: { name: string }) => e.name.startsWith('Bad ')));
    });
  });

  it('403 for a team outside the organization (and an unknown team)', async () => {
    for (const team of ['team_globex', 'team_nope']) {
      const res = await post(minimal({ team_id: team }));
      assert.equal(res.status, 403);
      assert.equal(res.body.error.code, 'forbidden');
    }
  });

  it('401 without a key; 403 for a key without event-types:write and for a publishable key', async () => {
    assert.equal((await t.request('POST', '/v1/event-types', { body: minimal() })).status, 401);
    assert.equal((await post(minimal(), readOnlyWriteless)).status, 403);
    assert.equal((await post(minimal(), KEYS.publishableAnyOrigin)).status, 403);
  });
});

describe('PATCH /v1/event-types/{id}', () => {
  it('changes only what is sent; an interval left at its default follows the duration', async () => {
    const created = (await post(minimal({ name: 'Patchable' }))).body.event_type;
    const res = await patch(created.id, { name: 'Patched', duration: 40, isActive: true });
    assert.equal(res.status, 200);
    assert.equal(res.body.warning, null);
    assert.equal(res.body.event_type.name, 'Patched');
    assert.equal(res.body.event_type.duration, 40);
    assert.equal(res.body.event_type.slot_interval, 40);
    assert.equal(res.body.event_type.slug, created.slug);
    const kept = await patch(created.id, { slot_interval: 15 });
    assert.equal(kept.body.event_type.slot_interval, 15);
    const again = await patch(created.id, { duration: 60 });
    assert.equal(again.body.event_type.slot_interval, 15, 'a chosen interval stays');
  });

  it('warns when a duration change leaves future bookings at their old duration, and when disabling a type with active bookings', async () => {
    const created = (await post(minimal({ name: 'With bookings' }))).body.event_type;
    await insertBooking(t.db.pool, { eventTypeId: created.id, memberIds: [MEMBERS.amara], start: '2026-12-01T10:00:00Z', minutes: 20 });
    const d = await patch(created.id, { duration: 25 });
    assert.equal(d.status, 200);
    assert.match(d.body.warning, /1 future booking\(s\) keep their original duration; the new duration of 25 minutes/);
    // Regression: a second change must not claim the bookings last the previous type duration (25).
    const d2 = await patch(created.id, { duration: 30 });
    assert.doesNotMatch(d2.body.warning, /25/);
    assert.match(d2.body.warning, /new duration of 30 minutes/);
    const off = await patch(created.id, { is_active: false });
    assert.equal(off.status, 200);
    assert.match(off.body.warning, /active booking/);
    assert.equal(off.body.event_type.is_active, false);
    assert.equal(
      (await t.request('GET', `/v1/event-types/${created.id}`, { key: KEYS.secret })).status,
      404,
      'inactive types are not readable',
    );
    const on = await patch(created.id, { is_active: true });
    assert.equal(on.body.warning, null);
  });

  it('replaces custom fields when sent', async () => {
    const created = (await post(minimal({ name: 'Fields', custom_fields: [{ key: 'a', label: 'A', type: 'TEXT' }] }))).body.event_type;
    const res = await patch(created.id, { custom_fields: [{ key: 'b', label: 'B', type: 'EMAIL', required: true }] });
    assert.deepEqual(
      res.body.event_type.custom_fields.map((f: { key: string }) => f.key),
      ['b'],
    );
  });

  it('409 on a slug in use; 400 naming a bad field; 403 for a foreign team; 404 for foreign or deleted ids', async () => {
    const created = (await post(minimal({ name: 'Patch errors' }))).body.event_type;
    assert.equal((await patch(created.id, { slug: 'onboarding' })).status, 409);
    const bad = await patch(created.id, { buffer_after: -1 });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.field, 'buffer_after');
    const personal = await patch(created.id, { is_personal: true });
    assert.equal(personal.body.error.field, 'owner_id');
    assert.equal((await patch(created.id, { team_id: 'team_globex' })).status, 403);
    assert.equal((await patch('et_globex_demo', { name: 'Mine now' })).status, 404);
    assert.equal((await patch('et_unknown', { name: 'x' })).status, 404);
    assert.equal((await patch(created.id, { name: 'x' }, KEYS.publishableAnyOrigin)).status, 403);
    assert.equal((await patch(created.id, { name: 'x' }, readOnlyWriteless)).status, 403);
    const globex = await t.request('GET', '/v1/event-types/et_globex_demo', { key: KEYS.other });
    assert.equal(globex.body.event_type.name, 'Globex demo', "the other organization's type is untouched");
  });
});

describe('JSON body types (regression: bodies were coerced like query strings)', () => {
  it('refuses a wrongly typed value with 400 naming the field instead of converting it', async () => {
    const created = (await post(minimal({ name: 'Strict types', description: 'kept' }))).body.event_type;
    for (const [body, field] of [
      [{ name: 123 }, 'name'],
      [{ duration: '30' }, 'duration'],
      [{ is_active: 'false' }, 'is_active'],
      [{ requires_confirmation: 1 }, 'requires_confirmation'],
      [{ host_ids: MEMBERS.amara }, 'host_ids'],
    ] as [Record<string, unknown>, string][]) {
      const res = await patch(created.id, body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.error.code, 'validation_error');
      assert.equal(res.body.error.field, field);
      assert.match(res.body.error.message, new RegExp(field));
    }
    const after = await t.request('GET', `/v1/event-types/${created.id}`, { key: KEYS.secret });
    assert.equal(after.body.event_type.name, 'Strict types');
    assert.equal(after.body.event_type.is_active, true);
    assert.equal((await post(minimal({ duration: '20' }))).status, 400);
  });

  it('an empty body means no body: DELETE with Content-Type: application/json works, POST still needs one', async () => {
    const created = (await post(minimal({ name: 'Bodyless delete' }))).body.event_type;
    const res = await t.request('DELETE', `/v1/event-types/${created.id}`, {
      key: KEYS.secret,
      rawBody: '',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(res.status, 200, res.text);
    for (const type of ['application/json', 'text/plain']) {
      const empty = await t.request('POST', '/v1/event-types', { key: KEYS.secret, rawBody: '', headers: { 'content-type': type } });
      assert.equal(empty.status, 400, type);
      assert.equal(empty.body.error.code, 'validation_error');
      assert.equal(empty.body.error.field, 'body');
    }
  });

  it('null clears description instead of becoming an empty string', async () => {
    const created = (await post(minimal({ name: 'Null clears', description: 'something' }))).body.event_type;
    const res = await patch(created.id, { description: null });
    assert.equal(res.status, 200);
    assert.equal(res.body.event_type.description, null);
  });

  it('an unknown enum value names the allowed ones; a text/plain body is 400', async () => {
    const bad = await post(minimal({ scheduling_type: 'BOGUS' }));
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.field, 'scheduling_type');
    assert.match(bad.body.error.message, /SOLO.*ROUND_ROBIN.*COLLECTIVE/);
    // Array entries are named as sent, like the domain's own messages (host_ids[0]).
    const entry = await post(minimal({ custom_fields: [{ key: 'a', label: 'A', type: 'COLOR' }] }));
    assert.equal(entry.body.error.field, 'custom_fields[0].type');
    assert.match(entry.body.error.message, /^field "custom_fields\[0\]\.type" must be one of "TEXT"/);
    const text = await t.request('POST', '/v1/event-types', {
      key: KEYS.secret,
      rawBody: 'name=x',
      headers: { 'content-type': 'text/plain' },
    });
    assert.equal(text.status, 400);
    assert.equal(text.body.error.type, 'invalid_request_error');
    assert.match(text.body.error.message, /application\/json/);
  });
});

describe('DELETE /v1/event-types/{id}', () => {
  it('soft-deletes: gone from reads and the list, slug free again', async () => {
    const created = (await post(minimal({ name: 'Doomed', slug: 'doomed' }))).body.event_type;
    const res = await del(created.id);
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body.event_type).sort(), ['deleted_at', 'id']);
    assert.equal(res.body.event_type.id, created.id);
    assert.equal((await t.request('GET', `/v1/event-types/${created.id}`, { key: KEYS.secret })).status, 404);
    assert.equal((await del(created.id)).status, 404);
    assert.equal((await patch(created.id, { name: 'zombie' })).status, 404);
    assert.equal((await post(minimal({ name: 'Doomed again', slug: 'doomed' }))).status, 201);
  });

  it('422 precondition_failed while active bookings exist; allowed once they are cancelled', async () => {
    const created = (await post(minimal({ name: 'Busy type' }))).body.event_type;
    const booking = await insertBooking(t.db.pool, {
      mode: 'live',
      eventTypeId: created.id,
      memberIds: [MEMBERS.jonas],
      start: '2026-12-02T10:00:00Z',
      minutes: 20,
    });
    const res = await del(created.id);
    assert.equal(res.status, 422);
    assert.equal(res.body.error.code, 'precondition_failed');
    assert.equal(res.body.error.type, 'precondition_error');
    await t.db.pool.query(`update bookings set status = 'CANCELLED' where id = $1`, [booking]);
    assert.equal((await del(created.id)).status, 200);
  });

  it("404 for another organization's type; 403 without the scope", async () => {
    assert.equal((await del('et_globex_demo')).status, 404);
    assert.equal((await del('et_onboarding', KEYS.publishableAnyOrigin)).status, 403);
    assert.equal((await del('et_onboarding', readOnlyWriteless)).status, 403);
    assert.equal((await t.request('DELETE', '/v1/event-types/et_onboarding')).status, 401);
  });
});

describe('GET /v1/event-types/{id}/fields', () => {
  it('lists the standard fields and the custom fields with their rules', async () => {
    const res = await t.request('GET', '/v1/event-types/et_intro_call/fields', { key: KEYS.publishableAnyOrigin });
    assert.equal(res.status, 200);
    assert.equal(res.body.event_type_id, 'et_intro_call');
    const std = res.body.standard_fields.map((f: { key: string }) => f.key);
    for (const k of ['requested_time', 'attendee.name', 'attendee.email', 'attendee.phone', 'attendee.timezone'])
      assert.ok(std.includes(k), k);
    const email = res.body.standard_fields.find((f: { key: string }) => f.key === 'attendee.email');
    assert.equal(email.required, true);
    assert.equal(email.format, 'email');
    assert.deepEqual(
      res.body.custom_fields.map((f: { key: string }) => f.key),
      ['company', 'topic'],
    );
    assert.match(res.body.custom_fields[0].validation, /500/);
    assert.deepEqual(res.body.custom_fields[1].options, ['pensions', 'mortgages', 'other']);
  });

  it("404 for another organization's type or an unknown one; 401 without a key", async () => {
    assert.equal((await t.request('GET', '/v1/event-types/et_globex_demo/fields', { key: KEYS.secret })).status, 404);
    assert.equal((await t.request('GET', '/v1/event-types/nope/fields', { key: KEYS.secret })).status, 404);
    assert.equal((await t.request('GET', '/v1/event-types/et_intro_call/fields')).status, 401);
  });
});
