import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { policyGuards } from '../../../src/domain/bookings/change.ts';
import { ValidationError } from '../../../src/domain/errors.ts';
import { decodeCursor, encodeCursor } from '../../../src/domain/bookings/cursor.ts';
import { inHostOrder, roundRobinOrder } from '../../../src/domain/bookings/routing.ts';
import {
  validateAttendee,
  validateAttendeePatch,
  validateCustomFields,
  validateMetadata,
  validateReason,
} from '../../../src/domain/bookings/validate.ts';
import type { BookingStatus } from '../../../src/domain/vocabulary.ts';

const fieldOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof ValidationError, String(e));
    return e.field;
  }
  assert.fail('expected a ValidationError');
};

describe('attendee validation', () => {
  it('accepts a full attendee and trims', () => {
    assert.deepEqual(validateAttendee({ name: ' Ada ', email: 'ada@example.com', phone: '+44 20 7946 0958', timezone: 'Europe/London' }), {
      name: 'Ada',
      email: 'ada@example.com',
      phone: '+44 20 7946 0958',
      timezone: 'Europe/London',
    });
  });
  it('names the bad field', () => {
    assert.equal(
      fieldOf(() => validateAttendee({ email: 'a@b.co' })),
      'attendee.name',
    );
    assert.equal(
      fieldOf(() => validateAttendee({ name: 'A', email: 'nope' })),
      'attendee.email',
    );
    assert.equal(
      fieldOf(() => validateAttendee({ name: 'A', email: 'a@b.co', phone: 'call me' })),
      'attendee.phone',
    );
    assert.equal(
      fieldOf(() => validateAttendee({ name: 'A', email: 'a@b.co', timezone: 'Mars/Base' })),
      'attendee.timezone',
    );
  });
  it('a patch keeps only the fields sent, checked, and refuses clearing the email', () => {
    assert.deepEqual(validateAttendeePatch({ name: 'B' }), { name: 'B' });
    assert.deepEqual(validateAttendeePatch({ phone: null }), { phone: null });
    assert.equal(
      fieldOf(() => validateAttendeePatch({ email: '' })),
      'attendee.email',
    );
    assert.equal(
      fieldOf(() => validateAttendeePatch({ timezone: 'Mars/Base' })),
      'attendee.timezone',
    );
  });
});

describe('custom fields', () => {
  const defs = [
    { key: 'company', type: 'TEXT', required: true, options: null },
    { key: 'topic', type: 'SELECT', required: false, options: ['a', 'b'] },
    { key: 'seats', type: 'NUMBER', required: false, options: null },
  ];
  it('drops unknown keys and keeps valid values', () => {
    assert.deepEqual(validateCustomFields(defs, { company: 'X', topic: 'a', zzz: 1 }), { company: 'X', topic: 'a' });
  });
  it('required missing or blank → 400 naming it; bad values → 400 naming it', () => {
    assert.equal(
      fieldOf(() => validateCustomFields(defs, {})),
      'custom_fields.company',
    );
    assert.equal(
      fieldOf(() => validateCustomFields(defs, { company: '  ' })),
      'custom_fields.company',
    );
    assert.equal(
      fieldOf(() => validateCustomFields(defs, { company: 'X', topic: 'c' })),
      'custom_fields.topic',
    );
    assert.equal(
      fieldOf(() => validateCustomFields(defs, { company: 'X', seats: 'many' })),
      'custom_fields.seats',
    );
  });
});

describe('metadata and reason', () => {
  it('accepts any JSON values within the limits (decisions.md §8)', () => {
    const nested = { a: 'x', b: 1, c: true, d: null, e: { f: [1, { g: null }], h: {} }, i: [], j: 'y'.repeat(2000) };
    assert.deepEqual(validateMetadata(nested), nested);
    assert.deepEqual(validateMetadata(undefined), {});
    const fifty = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`.padEnd(40, 'x'), i]));
    assert.deepEqual(validateMetadata(fifty), fifty);
    // exactly 16 KB as JSON: {"a":"…"} is 8 bytes around the string
    assert.ok(validateMetadata({ a: 'x'.repeat(16 * 1024 - 8) }));
  });
  it('refuses too many keys, empty or long keys and over 16 KB, naming metadata', () => {
    assert.equal(
      fieldOf(() => validateMetadata(Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])))),
      'metadata',
    );
    assert.equal(
      fieldOf(() => validateMetadata({ ['k'.repeat(41)]: 1 })),
      'metadata',
    );
    assert.equal(
      fieldOf(() => validateMetadata({ '': 1 })),
      'metadata',
    );
    assert.equal(
      fieldOf(() => validateMetadata({ a: 'x'.repeat(16 * 1024 - 7) })),
      'metadata',
    );
    assert.equal(
      fieldOf(() => validateMetadata({ a: 'é'.repeat(8 * 1024) })),
      'metadata',
    ); // 16 KB of characters, 2 bytes each
    assert.equal(
      fieldOf(() => validateMetadata([1])),
      'metadata',
    );
    assert.equal(
      fieldOf(() => validateMetadata('x')),
      'metadata',
    );
  });
  it('reason at most 500 characters', () => {
    assert.equal(validateReason('x'.repeat(500)), 'x'.repeat(500));
    assert.equal(
      fieldOf(() => validateReason('x'.repeat(501))),
      'reason',
    );
  });
});

describe('list cursor', () => {
  it('round-trips any position', () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }),
        fc.string(),
        fc.integer({ min: 0, max: 999 }),
        (d, id, us) => {
          const at = d.toISOString().replace('Z', `${String(us).padStart(3, '0')}Z`);
          assert.deepEqual(decodeCursor(encodeCursor({ createdAt: at, id })), { createdAt: at, id });
        },
      ),
    );
  });
  it('refuses forged, truncated and edited cursors', () => {
    const good = encodeCursor({ createdAt: '2026-11-23T09:00:00.123456Z', id: 'bkg_1' });
    const [payload, sig] = good.split('.');
    const forged = Buffer.from(JSON.stringify(['2026-11-23T09:00:00.123456Z', 'bkg_2'])).toString('base64url');
    for (const bad of ['x', good.slice(0, -2), `${forged}.${sig}`, `${payload}.${sig}.x`, `${payload}`, 'Zm9v.YmFy']) {
      assert.equal(
        fieldOf(() => decodeCursor(bad)),
        'cursor',
        bad,
      );
    }
  });
});

describe('routing order', () => {
  const ids = ['m1', 'm2', 'm3'];
  it('fewest bookings first, ties to the least recently booked, then host order', () => {
    const t = (s: string) => new Date(s);
    assert.deepEqual(
      roundRobinOrder(ids, [
        { member_id: 'm1', booked: 2, last_booked_at: t('2026-01-01') },
        { member_id: 'm2', booked: 1, last_booked_at: t('2026-01-03') },
        { member_id: 'm3', booked: 1, last_booked_at: t('2026-01-02') },
      ]),
      ['m3', 'm2', 'm1'],
    );
    assert.deepEqual(roundRobinOrder(ids, []), ids);
    assert.deepEqual(roundRobinOrder(ids, [{ member_id: 'm1', booked: 0, last_booked_at: t('2026-01-01') }]), ['m2', 'm3', 'm1']);
  });
  it('is a permutation whose head has the minimum count (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ booked: fc.nat(5), last: fc.option(fc.nat(1000)) }), { minLength: 1, maxLength: 6 }), (rows) => {
        const members = rows.map((_, i) => `m${i}`);
        const stats = rows.map((r, i) => ({
          member_id: `m${i}`,
          booked: r.booked,
          last_booked_at: r.last === null ? null : new Date(r.last),
        }));
        const order = roundRobinOrder(members, stats);
        assert.deepEqual([...order].sort(), [...members].sort());
        const min = Math.min(...rows.map((r) => r.booked));
        assert.equal(stats.find((s) => s.member_id === order[0])!.booked, min);
      }),
    );
  });
  it('inHostOrder sorts by the hosts list', () => {
    assert.deepEqual(inHostOrder(['b', 'x', 'a'], [{ id: 'a' }, { id: 'b' }]), ['a', 'b', 'x']);
  });
});

describe('cancellation policy', () => {
  it('guards confirmed meetings and a DRAFT routing will schedule; never a request awaiting confirmation', () => {
    const cases: [string, boolean, boolean][] = [
      ['SCHEDULED', false, true],
      ['RESCHEDULED', false, true],
      ['DRAFT', false, true],
      ['DRAFT', true, false],
      ['PENDING_CONFIRMATION', true, false],
    ];
    for (const [status, requires_confirmation, guarded] of cases) {
      assert.equal(
        policyGuards({ status: status as BookingStatus, requires_confirmation }),
        guarded,
        `${status}, confirmation ${requires_confirmation}`,
      );
    }
  });
});
