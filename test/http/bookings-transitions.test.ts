import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestApp } from '../helpers/app.ts';
import { startApp } from '../helpers/app.ts';
import { KEYS } from '../helpers/fixtures.ts';
import { NOW, activeHolds, seedBooking } from './bookings-helpers.ts';

/**
 * Every (status, operation) pair over HTTP on real PostgreSQL: the expected answer is written
 * out here from api-spec "States and transitions" and decisions.md §4, not read from the table.
 */
let t: TestApp;
before(async () => {
  t = await startApp({ now: NOW });
});
after(async () => {
  await t.close();
});

const STATUSES = ['DRAFT', 'SCHEDULED', 'PENDING_CONFIRMATION', 'RESCHEDULED', 'CANCELLED', 'COMPLETED', 'NO_SHOW'] as const;
type Status = (typeof STATUSES)[number];
type Expect = { http: 200; status: Status } | { http: 409 } | { http: 422 };

const ok = (status: Status): Expect => ({ http: 200, status });
const C: Expect = { http: 409 };
const T: Expect = { http: 422 };

const OPS: Record<string, { call: (id: string, i: number) => [string, string, unknown]; expect: Record<Status, Expect> }> = {
  confirm: {
    call: (id) => ['POST', `/v1/bookings/${id}/confirm`, undefined],
    expect: {
      DRAFT: C,
      SCHEDULED: ok('SCHEDULED'),
      PENDING_CONFIRMATION: ok('SCHEDULED'),
      RESCHEDULED: ok('SCHEDULED'),
      CANCELLED: C,
      COMPLETED: C,
      NO_SHOW: C,
    },
  },
  complete: {
    call: (id) => ['POST', `/v1/bookings/${id}/complete`, undefined],
    expect: {
      DRAFT: C,
      SCHEDULED: ok('COMPLETED'),
      PENDING_CONFIRMATION: C,
      RESCHEDULED: ok('COMPLETED'),
      CANCELLED: C,
      COMPLETED: ok('COMPLETED'),
      NO_SHOW: C,
    },
  },
  'no-show': {
    call: (id) => ['POST', `/v1/bookings/${id}/no-show`, undefined],
    expect: {
      DRAFT: C,
      SCHEDULED: ok('NO_SHOW'),
      PENDING_CONFIRMATION: C,
      RESCHEDULED: ok('NO_SHOW'),
      CANCELLED: C,
      COMPLETED: C,
      NO_SHOW: ok('NO_SHOW'),
    },
  },
  cancel: {
    call: (id) => ['DELETE', `/v1/bookings/${id}`, { reason: 'matrix' }],
    expect: {
      DRAFT: ok('CANCELLED'),
      SCHEDULED: ok('CANCELLED'),
      PENDING_CONFIRMATION: ok('CANCELLED'),
      RESCHEDULED: ok('CANCELLED'),
      CANCELLED: C,
      COMPLETED: T,
      NO_SHOW: T,
    },
  },
  reschedule: {
    // each applying pair moves to its own free Wednesday slot
    call: (id, i) => ['POST', `/v1/bookings/${id}/reschedule`, { start_time: `2026-12-16T${String(9 + (i % 7)).padStart(2, '0')}:00:00Z` }],
    expect: {
      DRAFT: C,
      SCHEDULED: ok('RESCHEDULED'),
      PENDING_CONFIRMATION: C,
      RESCHEDULED: ok('RESCHEDULED'),
      CANCELLED: C,
      COMPLETED: C,
      NO_SHOW: C,
    },
  },
  patch: {
    call: (id) => ['PATCH', `/v1/bookings/${id}`, { attendee: { name: 'Renamed' } }],
    expect: {
      DRAFT: C,
      SCHEDULED: ok('SCHEDULED'),
      PENDING_CONFIRMATION: ok('PENDING_CONFIRMATION'),
      RESCHEDULED: ok('RESCHEDULED'),
      CANCELLED: T,
      COMPLETED: T,
      NO_SHOW: T,
    },
  },
};

describe('every (status, operation) pair', () => {
  let i = 0;
  for (const [op, spec] of Object.entries(OPS)) {
    for (const status of STATUSES) {
      const n = i++;
      const expected = spec.expect[status];
      it(`${op} on ${status} → ${expected.http}${expected.http === 200 ? ` ${expected.status}` : ''}`, async () => {
        // far enough ahead that no cancellation cutoff applies; one hour apart so holds never overlap
        const start = new Date(Date.parse('2027-01-04T00:00:00Z') + n * 3_600_000).toISOString();
        const id = await seedBooking(t, { status, start });
        const [method, path, body] = spec.call(id, n);
        const res = await t.request(method, path, { key: KEYS.secret, body });
        assert.equal(res.status, expected.http, res.text);
        const after = await t.request('GET', `/v1/bookings/${id}`, { key: KEYS.secret });
        if (expected.http === 200) {
          assert.equal(res.body.booking.status, expected.status);
          if (op === 'reschedule') {
            assert.notEqual(res.body.booking.id, id);
            assert.equal(res.body.booking.rescheduled_from, id);
            assert.equal(after.body.booking.status, 'CANCELLED');
            assert.equal(after.body.booking.rescheduled_to, res.body.booking.id);
          } else {
            assert.equal(res.body.booking.id, id);
            assert.equal(after.body.booking.status, expected.status);
          }
          const ended = ['CANCELLED', 'COMPLETED', 'NO_SHOW'].includes(after.body.booking.status);
          assert.equal((await activeHolds(t, id)).length, ended ? 0 : 1, 'an ended booking frees its member');
        } else {
          assert.equal(res.body.error.code, expected.http === 422 ? 'terminal_state' : 'conflict');
          assert.equal(after.body.booking.status, status, 'a refused operation changes nothing');
        }
      });
    }
  }
});
