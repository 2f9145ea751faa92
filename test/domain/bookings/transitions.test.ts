import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Conflict, PreconditionFailed } from '../../../src/domain/errors.ts';
import type { Operation } from '../../../src/domain/bookings/transitions.ts';
import { STATUSES, TRANSITIONS, decide, requireTransition, routedStatus } from '../../../src/domain/bookings/transitions.ts';
import type { BookingStatus } from '../../../src/domain/vocabulary.ts';

type Outcome = 'apply' | 'noop' | 'terminal' | 'conflict';

/**
 * The oracle, written out by hand from api-spec "States and transitions" and decisions.md §4,
 * independently of the table under test: one row per operation, one column per status.
 */
const EXPECTED: Record<Operation, Record<BookingStatus, Outcome>> = {
  route: {
    DRAFT: 'apply',
    SCHEDULED: 'conflict',
    PENDING_CONFIRMATION: 'conflict',
    RESCHEDULED: 'conflict',
    CANCELLED: 'conflict',
    COMPLETED: 'conflict',
    NO_SHOW: 'conflict',
  },
  confirm: {
    DRAFT: 'conflict',
    SCHEDULED: 'noop',
    PENDING_CONFIRMATION: 'apply',
    RESCHEDULED: 'apply',
    CANCELLED: 'conflict',
    COMPLETED: 'conflict',
    NO_SHOW: 'conflict',
  },
  complete: {
    DRAFT: 'conflict',
    SCHEDULED: 'apply',
    PENDING_CONFIRMATION: 'conflict',
    RESCHEDULED: 'apply',
    CANCELLED: 'conflict',
    COMPLETED: 'noop',
    NO_SHOW: 'conflict',
  },
  no_show: {
    DRAFT: 'conflict',
    SCHEDULED: 'apply',
    PENDING_CONFIRMATION: 'conflict',
    RESCHEDULED: 'apply',
    CANCELLED: 'conflict',
    COMPLETED: 'conflict',
    NO_SHOW: 'noop',
  },
  cancel: {
    DRAFT: 'apply',
    SCHEDULED: 'apply',
    PENDING_CONFIRMATION: 'apply',
    RESCHEDULED: 'apply',
    CANCELLED: 'conflict',
    COMPLETED: 'terminal',
    NO_SHOW: 'terminal',
  },
  reschedule: {
    DRAFT: 'conflict',
    SCHEDULED: 'apply',
    PENDING_CONFIRMATION: 'conflict',
    RESCHEDULED: 'apply',
    CANCELLED: 'conflict',
    COMPLETED: 'conflict',
    NO_SHOW: 'conflict',
  },
  update_attendee: {
    DRAFT: 'conflict',
    SCHEDULED: 'apply',
    PENDING_CONFIRMATION: 'apply',
    RESCHEDULED: 'apply',
    CANCELLED: 'terminal',
    COMPLETED: 'terminal',
    NO_SHOW: 'terminal',
  },
};

describe('booking state machine', () => {
  for (const op of Object.keys(TRANSITIONS) as Operation[]) {
    for (const status of STATUSES) {
      it(`${op} on ${status} → ${EXPECTED[op][status]}`, () => {
        const expected = EXPECTED[op][status];
        assert.equal(decide(op, status).kind, expected);
        if (expected === 'apply') assert.deepEqual(requireTransition(op, status), { noop: false });
        else if (expected === 'noop') assert.deepEqual(requireTransition(op, status), { noop: true });
        else if (expected === 'terminal') {
          assert.throws(
            () => requireTransition(op, status),
            (e) => e instanceof PreconditionFailed && e.code === 'terminal_state',
          );
        } else assert.throws(() => requireTransition(op, status), Conflict);
      });
    }
  }

  it('has a row for every operation the oracle names, and no others', () => {
    assert.deepEqual(Object.keys(TRANSITIONS).sort(), Object.keys(EXPECTED).sort());
  });

  it('targets: confirm → SCHEDULED, complete → COMPLETED, no-show → NO_SHOW, cancel → CANCELLED', () => {
    assert.equal(TRANSITIONS.confirm.to, 'SCHEDULED');
    assert.equal(TRANSITIONS.complete.to, 'COMPLETED');
    assert.equal(TRANSITIONS.no_show.to, 'NO_SHOW');
    assert.equal(TRANSITIONS.cancel.to, 'CANCELLED');
  });

  it('routing ends in PENDING_CONFIRMATION exactly when the type requires confirmation', () => {
    assert.equal(routedStatus(true), 'PENDING_CONFIRMATION');
    assert.equal(routedStatus(false), 'SCHEDULED');
  });
});
