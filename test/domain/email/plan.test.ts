import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { BookingEmailKind, EmailContext, Person } from '../../../src/domain/email/plan.ts';
import { planEmails } from '../../../src/domain/email/plan.ts';

const attendee: Person = { name: 'Ada', email: 'ada@example.com', timezone: 'Europe/London' };
const amara: Person = { name: 'Amara', email: 'amara@northwind.example', timezone: 'Europe/London' };
const jonas: Person = { name: 'Jonas', email: 'jonas@northwind.example', timezone: 'Europe/Berlin' };
const meeting = { start: new Date('2026-12-01T10:00:00Z'), end: new Date('2026-12-01T10:30:00Z'), hosts: [amara, jonas] };

function ctx(kind: BookingEmailKind, extra: Partial<EmailContext> = {}): EmailContext {
  return {
    kind,
    mode: 'live',
    bookingId: 'bkg_1',
    status: 'SCHEDULED',
    eventTypeName: 'Intro call',
    eventTypeDescription: null,
    attendee,
    meeting,
    cancellationReason: null,
    ...extra,
  };
}

const summary = (c: EmailContext) => planEmails(c).map((e) => `${e.to.email} ${e.template} ${e.ics ?? '-'}`);

describe('planEmails', () => {
  it('scheduled: attendee and every host get a REQUEST', () => {
    assert.deepEqual(summary(ctx('scheduled')), [
      'ada@example.com scheduled REQUEST',
      'amara@northwind.example scheduled REQUEST',
      'jonas@northwind.example scheduled REQUEST',
    ]);
  });

  it('confirmation_request: hosts are asked, with an invitation (tentative); the attendee is told it waits, without one yet', () => {
    assert.deepEqual(summary(ctx('confirmation_request', { status: 'PENDING_CONFIRMATION' })), [
      'amara@northwind.example confirmation_request REQUEST',
      'jonas@northwind.example confirmation_request REQUEST',
      'ada@example.com request_received -',
    ]);
  });

  it('cancelled before the attendee was invited (awaiting confirmation): the hosts get a CANCEL, the attendee a plain note', () => {
    assert.deepEqual(summary(ctx('cancelled', { status: 'CANCELLED', attendeeInvited: false })), [
      'ada@example.com cancelled -',
      'amara@northwind.example cancelled CANCEL',
      'jonas@northwind.example cancelled CANCEL',
    ]);
  });

  it('cancelled: everyone gets a CANCEL', () => {
    assert.deepEqual(summary(ctx('cancelled', { status: 'CANCELLED' })), [
      'ada@example.com cancelled CANCEL',
      'amara@northwind.example cancelled CANCEL',
      'jonas@northwind.example cancelled CANCEL',
    ]);
  });

  it('rescheduled: current participants get a REQUEST (a host it brought in, as a new booking), replaced hosts a CANCEL about the old time', () => {
    const priya: Person = { name: 'Priya', email: 'PRIYA@northwind.example', timezone: 'America/New_York' };
    const previous = {
      start: new Date('2026-11-30T10:00:00Z'),
      end: new Date('2026-11-30T10:30:00Z'),
      hosts: [priya, { ...amara, email: 'Amara@Northwind.example' }],
    };
    const plan = planEmails(ctx('rescheduled', { status: 'RESCHEDULED', previous }));
    assert.deepEqual(
      plan.map((e) => `${e.to.email} ${e.template} ${e.ics}`),
      [
        'ada@example.com rescheduled REQUEST',
        'amara@northwind.example rescheduled REQUEST',
        'jonas@northwind.example scheduled REQUEST',
        'PRIYA@northwind.example removed CANCEL',
      ],
    );
    assert.equal(plan[3].meeting, previous);
  });

  it('email_changed: depends on the status; the previous address gets a CANCEL only when it differs', () => {
    assert.deepEqual(summary(ctx('email_changed', { previousEmail: 'old@example.com' })), [
      'ada@example.com email_changed REQUEST',
      'old@example.com removed CANCEL',
    ]);
    assert.deepEqual(summary(ctx('email_changed', { previousEmail: 'ADA@example.com' })), ['ada@example.com email_changed REQUEST']);
    assert.deepEqual(summary(ctx('email_changed', { status: 'PENDING_CONFIRMATION', previousEmail: 'old@example.com' })), [
      'ada@example.com request_received -',
    ]);
    for (const status of ['DRAFT', 'CANCELLED', 'COMPLETED', 'NO_SHOW']) assert.deepEqual(summary(ctx('email_changed', { status })), []);
  });

  it('property: hosts never receive an email_changed message, and the attendee always hears of a change', () => {
    const kinds: BookingEmailKind[] = ['scheduled', 'confirmation_request', 'cancelled', 'rescheduled'];
    fc.assert(
      fc.property(fc.constantFrom(...kinds), fc.integer({ min: 0, max: 4 }), (kind, n) => {
        const hosts = Array.from({ length: n }, (_, i) => ({ ...amara, email: `h${i}@northwind.example` }));
        const plan = planEmails(ctx(kind, { meeting: { ...meeting, hosts } }));
        assert.equal(plan.filter((e) => e.role === 'attendee').length, 1);
        assert.equal(plan.filter((e) => e.role === 'host').length, n);
        assert.equal(planEmails(ctx('email_changed', { meeting: { ...meeting, hosts } })).filter((e) => e.role === 'host').length, 0);
      }),
    );
  });
});
