import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderIcs } from '../../../src/domain/email/ics.ts';
import { mailDomain, toMailMessage } from '../../../src/domain/email/message.ts';
import type { EmailContext } from '../../../src/domain/email/plan.ts';
import { formatMeetingTime, renderEmail } from '../../../src/domain/email/render.ts';
import { icsLines, icsProp } from '../../helpers/smtp-receiver.ts';
import type { EmailRow } from '../../../src/db/schema.ts';

const ada = { name: 'Ada', email: 'ada@example.com', timezone: 'Europe/London' };
const amara = { name: 'Amara Okafor', email: 'amara@northwind.example', timezone: 'Europe/London' };

describe('formatMeetingTime', () => {
  it('shows the time in the recipient zone, across DST, and falls back to UTC for an unknown zone', () => {
    const m = { start: new Date('2026-03-29T00:30:00Z'), end: new Date('2026-03-29T01:30:00Z') };
    assert.equal(formatMeetingTime(m, 'Europe/London'), 'Sunday, 29 March 2026, 00:30–02:30 (Europe/London)');
    assert.equal(formatMeetingTime(m, 'Not/AZone'), 'Sunday, 29 March 2026, 00:30–01:30 (UTC)');
    const overnight = { start: new Date('2026-12-01T23:30:00Z'), end: new Date('2026-12-02T00:30:00Z') };
    assert.equal(formatMeetingTime(overnight, 'UTC'), 'Tuesday, 1 December 2026, 23:30–Wednesday, 2 December 2026, 00:30 (UTC)');
  });
});

describe('renderEmail', () => {
  const meeting = { start: new Date('2026-12-01T10:00:00Z'), end: new Date('2026-12-01T10:30:00Z'), hosts: [amara] };
  const ctx: EmailContext = {
    kind: 'cancelled',
    mode: 'test',
    bookingId: 'bkg_9',
    status: 'CANCELLED',
    eventTypeName: 'Intro call',
    eventTypeDescription: null,
    attendee: ada,
    meeting,
    cancellationReason: 'Sick',
  };

  it('marks test-mode mail in the subject and names the reason of a cancellation', () => {
    const r = renderEmail(ctx, { role: 'attendee', to: ada, template: 'cancelled', ics: 'CANCEL', meeting });
    assert.equal(r.subject, '[Test] Cancelled: Intro call with Amara Okafor');
    assert.match(r.text, /Reason: Sick/);
    assert.match(r.text, /Booking: bkg_9/);
    const live = renderEmail({ ...ctx, mode: 'live' }, { role: 'host', to: amara, template: 'cancelled', ics: 'CANCEL', meeting });
    assert.equal(live.subject, 'Cancelled: Intro call with Ada');
  });
});

describe('renderIcs', () => {
  it('writes one UTC VEVENT with the method, UID, SEQUENCE, organizer and attendees', () => {
    const text = renderIcs({
      method: 'CANCEL',
      uid: 'bkg_1@booking-service',
      sequence: 4,
      start: new Date('2026-12-01T10:00:00Z'),
      end: new Date('2026-12-01T10:30:00Z'),
      stamp: new Date('2026-11-30T08:00:00Z'),
      summary: 'Intro call',
      description: 'Line one\nLine two',
      organizer: amara,
      attendees: [ada],
    });
    assert.equal(icsProp(text, 'METHOD'), 'CANCEL');
    assert.equal(icsProp(text, 'STATUS'), 'CANCELLED');
    assert.equal(icsProp(text, 'UID'), 'bkg_1@booking-service');
    assert.equal(icsProp(text, 'SEQUENCE'), '4');
    assert.equal(icsProp(text, 'DTSTAMP'), '20261130T080000Z');
    assert.equal(icsProp(text, 'DTSTART'), '20261201T100000Z');
    assert.equal(icsProp(text, 'DESCRIPTION'), 'Line one\\nLine two');
    const attendee = icsLines(text).find((l) => l.name === 'ATTENDEE')!;
    assert.match(attendee.params, /PARTSTAT=ACCEPTED/);
    assert.equal(attendee.value.toLowerCase(), 'mailto:ada@example.com');
    assert.ok(!/VTIMEZONE|TZID/.test(text), 'times are UTC, no zone definitions');
    assert.equal(text.match(/BEGIN:VEVENT/g)?.length, 1);
    assert.ok(text.endsWith('END:VCALENDAR\r\n'), 'the last line ends with CRLF too (RFC 5545 §3.1)');
    assert.ok(!/[^\r]\n/.test(text), 'every line break is CRLF');
  });
});

describe('toMailMessage', () => {
  it('derives a stable Message-ID from the row and carries the ICS method', () => {
    assert.equal(mailDomain('Bookings <b@mail.example>'), 'mail.example');
    assert.equal(mailDomain('b@plain.example'), 'plain.example');
    const row = {
      id: 'eml_1',
      booking_id: 'bkg_1',
      mode: 'live',
      to_address: 'a@example.com',
      to_name: null,
      subject: 's',
      text_body: 't',
      ics: 'X',
      ics_method: 'CANCEL',
    } as EmailRow;
    const msg = toMailMessage(row, 'Bookings <b@mail.example>');
    assert.equal(msg.messageId, '<eml_1@mail.example>');
    assert.deepEqual(msg.icalEvent, { method: 'CANCEL', filename: 'invite.ics', content: 'X' });
    assert.equal(toMailMessage({ ...row, ics: null }, 'b@x.example').icalEvent, undefined);
  });
});
