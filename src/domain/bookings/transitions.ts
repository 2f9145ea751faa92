import { Conflict, PreconditionFailed } from '../errors.ts';
import type { BookingStatus } from '../vocabulary.ts';

export const STATUSES: readonly BookingStatus[] = [
  'DRAFT',
  'SCHEDULED',
  'PENDING_CONFIRMATION',
  'RESCHEDULED',
  'CANCELLED',
  'COMPLETED',
  'NO_SHOW',
];

export type Operation = 'route' | 'confirm' | 'complete' | 'no_show' | 'cancel' | 'reschedule' | 'update_attendee';

export interface Transition {
  /** Statuses the operation starts from. */
  from: readonly BookingStatus[];
  /**
   * Where it leads; null when the status stays (attendee update). `route` leads to SCHEDULED or
   * PENDING_CONFIRMATION depending on the event type: `to` is the default, see routedStatus().
   */
  to: BookingStatus | null;
  /** Already there: 200 with the current booking and no side effects (api-spec rule 1). */
  idempotentIn: readonly BookingStatus[];
  /** 422 terminal_state instead of 409 (api-spec rules 3 and 4, decisions.md §6). */
  terminalIn: readonly BookingStatus[];
}

/**
 * The booking state machine (api-spec "States and transitions" and decisions.md §4), the one
 * table every operation consults. A (status, operation) pair not named here is 409 conflict.
 */
export const TRANSITIONS: Record<Operation, Transition> = {
  route: { from: ['DRAFT'], to: 'SCHEDULED', idempotentIn: [], terminalIn: [] },
  confirm: { from: ['PENDING_CONFIRMATION', 'RESCHEDULED'], to: 'SCHEDULED', idempotentIn: ['SCHEDULED'], terminalIn: [] },
  complete: { from: ['SCHEDULED', 'RESCHEDULED'], to: 'COMPLETED', idempotentIn: ['COMPLETED'], terminalIn: [] },
  no_show: { from: ['SCHEDULED', 'RESCHEDULED'], to: 'NO_SHOW', idempotentIn: ['NO_SHOW'], terminalIn: [] },
  // A second cancel is 409 (decisions.md §4); only an Idempotency-Key replay answers 200.
  cancel: {
    from: ['DRAFT', 'PENDING_CONFIRMATION', 'SCHEDULED', 'RESCHEDULED'],
    to: 'CANCELLED',
    idempotentIn: [],
    terminalIn: ['COMPLETED', 'NO_SHOW'],
  },
  // The booking itself moves to CANCELLED; the new booking starts in RESCHEDULED.
  reschedule: { from: ['SCHEDULED', 'RESCHEDULED'], to: 'CANCELLED', idempotentIn: [], terminalIn: [] },
  update_attendee: {
    from: ['SCHEDULED', 'RESCHEDULED', 'PENDING_CONFIRMATION'],
    to: null,
    idempotentIn: [],
    terminalIn: ['CANCELLED', 'COMPLETED', 'NO_SHOW'],
  },
};

export type Decision = { kind: 'apply'; to: BookingStatus | null } | { kind: 'noop' } | { kind: 'terminal' } | { kind: 'conflict' };

/** What the table says about one operation on one status; pure, so a test can walk every pair. */
export function decide(op: Operation, status: BookingStatus): Decision {
  const t = TRANSITIONS[op];
  if (t.from.includes(status)) return { kind: 'apply', to: t.to };
  if (t.idempotentIn.includes(status)) return { kind: 'noop' };
  if (t.terminalIn.includes(status)) return { kind: 'terminal' };
  return { kind: 'conflict' };
}

const VERB: Record<Operation, string> = {
  route: 'route',
  confirm: 'confirm',
  complete: 'complete',
  no_show: 'mark as no-show',
  cancel: 'cancel',
  reschedule: 'reschedule',
  update_attendee: 'update',
};

/** decide(), with the refusals thrown as the errors the spec names; true when it is a no-op. */
export function requireTransition(op: Operation, status: BookingStatus): { noop: boolean } {
  const d = decide(op, status);
  if (d.kind === 'apply') return { noop: false };
  if (d.kind === 'noop') return { noop: true };
  if (d.kind === 'terminal') throw new PreconditionFailed('terminal_state', `cannot ${VERB[op]} a booking in status ${status}`);
  throw new Conflict(`cannot ${VERB[op]} a booking in status ${status}`);
}

/** Routing's target: PENDING_CONFIRMATION when the event type requires the host's confirmation. */
export function routedStatus(requiresConfirmation: boolean): BookingStatus {
  return requiresConfirmation ? 'PENDING_CONFIRMATION' : 'SCHEDULED';
}
