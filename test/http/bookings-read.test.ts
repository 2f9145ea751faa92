import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestApp } from '../helpers/app.ts';
import { startApp } from '../helpers/app.ts';
import { KEYS, MEMBERS } from '../helpers/fixtures.ts';
import { NOW, created, introBody } from './bookings-helpers.ts';

let t: TestApp;
before(async () => {
  t = await startApp({ now: NOW });
  await seedMany(1000);
});
after(async () => {
  await t.close();
});

const STATUSES = ['DRAFT', 'SCHEDULED', 'PENDING_CONFIRMATION', 'RESCHEDULED', 'CANCELLED', 'COMPLETED', 'NO_SHOW'];
const TYPES = ['et_intro_call', 'et_planning_session', 'et_onboarding'];

interface Seeded {
  id: string;
  status: string;
  event_type_id: string;
  assigned: string | null;
  hosts: string[];
  email: string;
  start: number;
}
const seeded: Seeded[] = [];

/**
 * 1,000 test-mode bookings with every filterable attribute varied. Groups of five share one
 * created_at, so the id tie-break of the keyset is exercised too.
 */
async function seedMany(n: number) {
  const base = Date.parse('2026-11-01T00:00:00Z');
  const values: unknown[] = [];
  const rowsSql: string[] = [];
  for (let i = 0; i < n; i++) {
    const type = TYPES[i % 3];
    const collective = type === 'et_planning_session';
    const assigned = i % 4 === 0 ? null : [MEMBERS.amara, MEMBERS.jonas, MEMBERS.priya][i % 3];
    const hosts = collective && assigned ? [MEMBERS.amara, MEMBERS.jonas] : assigned ? [assigned] : [];
    const s: Seeded = {
      id: `bkg_list${String(i).padStart(6, '0')}`,
      status: STATUSES[i % 7],
      event_type_id: type,
      assigned: collective && assigned ? MEMBERS.amara : assigned,
      hosts,
      email: `person${i % 10}@Example.com`,
      start: Date.parse('2027-01-01T00:00:00Z') + i * 3_600_000,
    };
    seeded.push(s);
    const p = values.length;
    rowsSql.push(
      `($${p + 1}, 'org_northwind', 'test', $${p + 2}, $${p + 3}, $${p + 4}, $${p + 4}::timestamptz + interval '30 minutes', $${p + 5}, $${p + 6}, $${p + 7}::uuid[], $${p + 8})`,
    );
    values.push(
      s.id,
      s.event_type_id,
      s.status,
      new Date(s.start),
      JSON.stringify({ name: `P${i}`, email: s.email }),
      s.assigned,
      s.hosts,
      new Date(base + Math.floor(i / 5) * 1000),
    );
  }
  await t.db.pool.query(
    `insert into bookings (id, organization_id, mode, event_type_id, status, start_time, end_time, attendee, assigned_to_id, host_ids, created_at)
     values ${rowsSql.join(', ')}`,
    values,
  );
}

async function walk(query: string, limit: number, between?: () => Promise<void>): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 1000; page++) {
    const q = `${query}${query ? '&' : ''}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const res = await t.request('GET', `/v1/bookings?${q}`, { key: KEYS.secret });
    assert.equal(res.status, 200, res.text);
    assert.ok(res.body.bookings.length <= limit);
    ids.push(...res.body.bookings.map((b: { id: string }) => b.id));
    if (!res.body.pagination.has_more) {
      assert.equal(res.body.pagination.next_cursor, null);
      return ids;
    }
    assert.equal(typeof res.body.pagination.next_cursor, 'string');
    cursor = res.body.pagination.next_cursor;
    if (between) await between();
  }
  throw new Error('walk did not end');
}

/** Expected ids of the seeded set matching `keep`, newest first (created_at desc, id desc). */
function expected(keep: (s: Seeded) => boolean): string[] {
  return seeded
    .map((s, i) => ({ s, i }))
    .filter(({ s }) => keep(s))
    .sort((a, b) => Math.floor(b.i / 5) - Math.floor(a.i / 5) || (a.s.id < b.s.id ? 1 : -1))
    .map(({ s }) => s.id);
}

describe('GET /bookings: walks over 1,000 bookings', () => {
  let inserted = 0;
  // A new booking arrives between every two pages: it sorts before the first page, so it never
  // shifts the walk (no duplicates, nothing skipped).
  const insertOne = async () => {
    inserted++;
    await t.db.pool.query(
      `insert into bookings (id, organization_id, mode, event_type_id, status, start_time, end_time, attendee)
       values ($1, 'org_northwind', 'test', 'et_onboarding', 'SCHEDULED', '2027-06-01T10:00:00Z', '2027-06-01T10:45:00Z', '{"name":"New","email":"new@example.com"}')`,
      [`bkg_zz_new_${String(inserted).padStart(4, '0')}`],
    );
  };
  const isNew = (id: string) => id.startsWith('bkg_zz_new_');

  const filters: [string, string, (s: Seeded) => boolean][] = [
    ['no filter', '', () => true],
    ['status', 'status=CANCELLED', (s) => s.status === 'CANCELLED'],
    ['event_type_id', 'event_type_id=et_planning_session', (s) => s.event_type_id === 'et_planning_session'],
    [
      'assigned_to_id (assigned or any host)',
      `assigned_to_id=${MEMBERS.jonas}`,
      (s) => s.assigned === MEMBERS.jonas || s.hosts.includes(MEMBERS.jonas),
    ],
    ['attendee_email (case-insensitive)', 'attendee_email=PERSON3@example.com', (s) => s.email.toLowerCase() === 'person3@example.com'],
    [
      'start_date and end_date',
      'start_date=2027-01-10T00:00:00Z&end_date=2027-01-20T00:00:00Z',
      (s) => s.start >= Date.parse('2027-01-10T00:00:00Z') && s.start < Date.parse('2027-01-20T00:00:00Z'),
    ],
    [
      'several filters (camelCase aliases)',
      `status=SCHEDULED&eventTypeId=et_intro_call&startDate=2027-01-05`,
      (s) => s.status === 'SCHEDULED' && s.event_type_id === 'et_intro_call' && s.start >= Date.parse('2027-01-05T00:00:00Z'),
    ],
  ];
  for (const [name, query, keep] of filters) {
    it(`${name}: every match exactly once, in order, while bookings are inserted`, async () => {
      const want = expected(keep);
      assert.ok(want.length > 0);
      const got = (await walk(query, 37, insertOne)).filter((id) => !isNew(id));
      assert.equal(new Set(got).size, got.length, 'no duplicates');
      assert.deepEqual(got, want);
    });
  }

  it('pages of 100 cover the whole set; the default page is 50', async () => {
    const got = (await walk('', 100)).filter((id) => !isNew(id));
    assert.deepEqual(
      got,
      expected(() => true),
    );
    const first = await t.request('GET', '/v1/bookings', { key: KEYS.secret });
    assert.equal(first.body.bookings.length, 50);
    assert.equal(first.body.pagination.has_more, true);
  });
});

describe('GET /bookings: parameters', () => {
  const bad = [
    'limit=0',
    'limit=101',
    'limit=abc',
    'limit=1.5',
    // numbers as JavaScript reads them but not as a query string writes them
    'limit=0x0A',
    'limit=0b11',
    'limit=0o7',
    'limit=%2010',
    'limit=+10',
    'limit=1e1',
    'limit=10.0',
    'limit=',
    'status=BOGUS',
    'assigned_to_id=not-a-uuid',
    'attendee_email=nope',
    'start_date=yesterday',
    'end_date=2027-13-45T00:00:00Z',
    'cursor=forged',
    // impossible dates, which Date.parse would roll over into the next month
    'start_date=2026-11-31T00:00:00Z',
    'start_date=2026-02-29',
    'end_date=2026-04-31',
    'end_date=2026-12-01T24:00:00Z',
    'cursor=eyJhIjoxfQ.AAAAAAAAAAAAAAAA',
  ];
  for (const q of bad) {
    it(`400 validation_error for ${q}`, async () => {
      const res = await t.request('GET', `/v1/bookings?${q}`, { key: KEYS.secret });
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.error.code, 'validation_error');
      assert.match(res.body.error.message, new RegExp(q.split('=')[0]));
    });
  }

  it('an edited cursor is refused', async () => {
    const page = await t.request('GET', '/v1/bookings?limit=2', { key: KEYS.secret });
    const cursor: string = page.body.pagination.next_cursor;
    const [payload, sig] = cursor.split('.');
    const json = JSON.parse(Buffer.from(payload, 'base64url').toString());
    json[1] = 'bkg_list999999';
    const edited = `${Buffer.from(JSON.stringify(json)).toString('base64url')}.${sig}`;
    assert.equal((await t.request('GET', `/v1/bookings?cursor=${edited}`, { key: KEYS.secret })).status, 400);
  });

  it("another organization's ids in filters match nothing; other keys see none of ours", async () => {
    const a = await t.request('GET', '/v1/bookings?event_type_id=et_globex_demo', { key: KEYS.secret });
    assert.deepEqual(a.body.bookings, []);
    const b = await t.request('GET', `/v1/bookings?assigned_to_id=${MEMBERS.otherOrg}`, { key: KEYS.secret });
    assert.deepEqual(b.body.bookings, []);
    const other = await t.request('GET', '/v1/bookings', { key: KEYS.other });
    assert.equal(other.status, 200);
    assert.ok(other.body.bookings.every((x: { id: string }) => !x.id.startsWith('bkg_list')));
    const live = await t.request('GET', '/v1/bookings', { key: KEYS.live });
    assert.deepEqual(live.body.bookings, [], 'test bookings are invisible to a live key');
  });

  it('401 without a key, 403 without bookings:read and for publishable keys', async () => {
    assert.equal((await t.request('GET', '/v1/bookings')).status, 401);
    assert.equal((await t.request('GET', '/v1/bookings', { key: KEYS.readOnly })).status, 403);
    assert.equal((await t.request('GET', '/v1/bookings', { key: KEYS.publishableAnyOrigin })).status, 403);
  });
});

describe('GET /bookings/{id} and /bookings/external/{externalId}', () => {
  it('returns the full booking; the same by external id', async () => {
    const b = await created(t, introBody('2026-12-02T10:00:00Z', { external_id: 'crm/42 x', metadata: { source: 'web' } }));
    const res = await t.request('GET', `/v1/bookings/${b.id}`, { key: KEYS.secret });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { success: true, booking: b });
    for (const field of [
      'custom_fields',
      'metadata',
      'assigned_to_id',
      'host_ids',
      'event_type_id',
      'created_at',
      'updated_at',
      'cancellation_reason',
      'rescheduled_from',
      'rescheduled_to',
    ]) {
      assert.ok(field in res.body.booking, field);
    }
    const ext = await t.request('GET', `/v1/bookings/external/${encodeURIComponent('crm/42 x')}`, { key: KEYS.secret });
    assert.equal(ext.status, 200, ext.text);
    assert.equal(ext.body.booking.id, b.id);
    const alias = await t.request('GET', `/bookings/${b.id}`, { key: KEYS.secret });
    assert.equal(alias.body.booking.id, b.id, 'the unprefixed path is an alias');
  });

  it('404 for unknown ids, another organization and the other mode; 401/403 without the right key', async () => {
    const b = await created(t, introBody('2026-12-02T11:00:00Z', { external_id: 'iso-1' }));
    for (const path of [`/v1/bookings/${b.id}`, '/v1/bookings/external/iso-1']) {
      assert.equal((await t.request('GET', path, { key: KEYS.other })).status, 404);
      assert.equal((await t.request('GET', path, { key: KEYS.live })).status, 404);
      assert.equal((await t.request('GET', path)).status, 401);
      assert.equal((await t.request('GET', path, { key: KEYS.readOnly })).status, 403);
      assert.equal((await t.request('GET', path, { key: KEYS.publishableAnyOrigin })).status, 403);
    }
    const unknown = await t.request('GET', '/v1/bookings/bkg_nope', { key: KEYS.secret });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.error.code, 'not_found');
    assert.equal((await t.request('GET', '/v1/bookings/external/nope', { key: KEYS.secret })).status, 404);
  });
});
