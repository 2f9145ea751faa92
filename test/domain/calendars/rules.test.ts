import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { etagOf, parseMultistatus, xmlText } from '../../../src/domain/calendars/caldav.ts';
import { fold, renderCalendarEvent } from '../../../src/domain/calendars/event-ics.ts';
import { syncWindow } from '../../../src/domain/calendars/sync.ts';
import { checkCalendarUrl, isLoopbackHost } from '../../../src/domain/calendars/url-rules.ts';
import { SeedError, validateSeed } from '../../../src/domain/seed/validate.ts';
import { MEMBERS, testSeed } from '../../helpers/fixtures.ts';

describe('calendar URL rules', () => {
  it('https anywhere, private addresses included; http only on loopback', () => {
    for (const ok of [
      'https://caldav.icloud.com/',
      'https://10.0.0.5/remote.php/dav/',
      'http://127.0.0.1:5232/u/c/',
      'http://localhost/dav/',
      'http://[::1]:8/',
    ]) {
      assert.doesNotThrow(() => checkCalendarUrl(ok), ok);
    }
    assert.throws(() => checkCalendarUrl('http://10.0.0.5/dav/'), /must use https \(http is allowed only on a loopback host\)/);
    assert.throws(() => checkCalendarUrl('ftp://example.com/'), /must be an https URL/);
    assert.throws(() => checkCalendarUrl('https://user:pw@example.com/'), /must not contain credentials/);
    assert.throws(() => checkCalendarUrl('not a url'), /not a valid absolute URL/);
    assert.ok(isLoopbackHost('127.8.9.10') && isLoopbackHost('[::ffff:127.0.0.1]') && !isLoopbackHost('192.168.1.1'));
  });
});

describe("the seed file's calendar connection", () => {
  const withConnection = (provider: string, connection: unknown) => {
    const seed = testSeed();
    seed.organizations[0].calendars.push({
      id: 'cal_x',
      userId: MEMBERS.amara,
      teamId: 'team_advisors',
      provider,
      calendarId: 'x',
      connection,
    });
    return seed;
  };

  it('is accepted for CALDAV and APPLE', () => {
    for (const provider of ['CALDAV', 'APPLE']) {
      const parsed = validateSeed(withConnection(provider, { url: 'https://dav.example.com/cal/', username: 'u', password: 'p' }));
      assert.deepEqual(parsed.organizations[0].calendars.at(-1)!.connection, {
        url: 'https://dav.example.com/cal/',
        username: 'u',
        password: 'p',
      });
    }
  });

  it('is refused for GOOGLE and MICROSOFT, for a bad URL, and never echoes the password', () => {
    assert.throws(
      () => validateSeed(withConnection('GOOGLE', { url: 'https://x.example/', username: 'u', password: 'p' })),
      (e: Error) =>
        e instanceof SeedError &&
        /calendars\[\d+\]\.connection: only CALDAV and APPLE calendars can be connected; GOOGLE is metadata only/.test(e.message),
    );
    assert.throws(
      () => validateSeed(withConnection('CALDAV', { url: 'http://dav.example.com/', username: 'u', password: 'p' })),
      /connection\.url: must use https/,
    );
    assert.throws(
      () => validateSeed(withConnection('CALDAV', { url: 'https://dav.example.com/', username: 'u', password: 42 })),
      (e: Error) => /connection\.password: expected a non-empty string/.test(e.message) && !e.message.includes('42'),
    );
    assert.throws(
      () => validateSeed(withConnection('CALDAV', { url: 'https://dav.example.com/', username: 'u', password: 'p', token: 'x' })),
      /connection\.token: unknown field/,
    );
  });
});

describe("the event written to a host's calendar", () => {
  it('folds lines at 75 octets without splitting a character, and escapes text', () => {
    const long = `SUMMARY:${'é'.repeat(60)}`;
    const folded = fold(long);
    for (const line of folded.split('\r\n')) assert.ok(Buffer.byteLength(line, 'utf8') <= 75);
    assert.equal(folded.replace(/\r\n /g, ''), long);
    const text = renderCalendarEvent({
      uid: 'bkg_1@booking-service',
      bookingId: 'bkg_2',
      sequence: 3,
      stamp: new Date('2026-12-01T00:00:00Z'),
      start: new Date('2026-12-02T10:00:00Z'),
      end: new Date('2026-12-02T10:30:00Z'),
      status: 'TENTATIVE',
      summary: 'Intro; call, with "Ada"',
      description: 'line 1\nline 2',
      organizer: { name: 'Amara, O.', email: 'amara@example.com' },
      attendees: [{ name: 'Ada', email: 'ada@example.com' }],
    });
    assert.match(text, /^SUMMARY:Intro\\; call\\, with "Ada"\r$/m);
    assert.match(text, /^DESCRIPTION:line 1\\nline 2\r$/m);
    assert.match(text, /^ORGANIZER;CN="Amara, O.";SCHEDULE-AGENT=CLIENT:mailto:amara@example\.com\r$/m);
    assert.match(text, /^STATUS:TENTATIVE\r$/m);
    assert.match(text, /^X-BOOKING-ID:bkg_2\r$/m);
    assert.ok(text.endsWith('END:VCALENDAR\r\n'));
  });
});

describe('WebDAV answers', () => {
  it('decode entities and references, and drop NUL (PostgreSQL text cannot hold it)', () => {
    assert.equal(xmlText('a &amp; b &lt;c&gt; &#13;&#10;&#x41;'), 'a & b <c> \r\nA');
    assert.equal(xmlText('x&#0;y\u0000z'), 'xyz');
    assert.equal(xmlText('&unknown; &#xFFFFFFF;'), '&unknown; &#xFFFFFFF;');
    const entries = parseMultistatus(
      '<?xml version="1.0"?><d:multistatus xmlns:d="DAV:"><d:response><d:href>/a%20b/x.ics</d:href><d:propstat><d:prop>' +
        '<d:getetag>"1"</d:getetag></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>' +
        '<d:response><d:href>/a%20b/gone.ics</d:href><d:status>HTTP/1.1 404 Not Found</d:status></d:response></d:multistatus>',
      'https://dav.example/a%20b/',
    );
    assert.deepEqual(
      entries.map((e) => [e.href, e.status, etagOf(e.props.getetag)]),
      [
        ['https://dav.example/a%20b/x.ics', 200, '"1"'],
        ['https://dav.example/a%20b/gone.ics', 404, null],
      ],
    );
    assert.throws(() => parseMultistatus('<html>502 Bad Gateway</html>', 'https://dav.example/'), /not a DAV multistatus/);
    // syncError names the URL, never what the server wrote (docs/calendars.md)
    assert.throws(
      () => parseMultistatus('<<not xml secret-token-123', 'https://dav.example/u/c/'),
      (err: Error) => err.message === 'unparseable XML answer from https://dav.example/u/c/',
    );
  });
});

describe('the sync window', () => {
  it('runs from the start of yesterday (UTC) to the end of today plus the horizon', () => {
    const w = syncWindow(new Date('2026-12-01T23:59:00Z'), 180);
    assert.equal(w.start.toISOString(), '2026-11-30T00:00:00.000Z');
    assert.equal(w.end.toISOString(), '2027-05-31T00:00:00.000Z');
  });
});
