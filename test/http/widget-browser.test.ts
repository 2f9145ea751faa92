import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { DateTime } from 'luxon';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import type { TestApp } from '../helpers/app.ts';
import { startApp } from '../helpers/app.ts';
import { CHROMIUM, CHROMIUM_FLAGS, skipBecause } from '../helpers/components.ts';
import { KEYS, testSeed } from '../helpers/fixtures.ts';

/**
 * The booking page in a real headless Chromium (Debian's /usr/bin/chromium driven by
 * playwright-core; no browser is ever downloaded). Screenshots are kept in test-artifacts/widget/.
 */
const ARTIFACTS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../test-artifacts/widget');
const VISITOR_ZONE = 'America/New_York';
const PAGE_KEY = KEYS.publishableAnyOrigin;
/** A publishable key that allows only the customer site's origin (added to the seed below). */
const CUSTOMER_KEY = 'pk_test_northwind_customer_site_0001';

// On a developer's machine without Chromium: skipped with this reason; under CI=true: a failure.
const skip = fs.existsSync(CHROMIUM)
  ? false
  : skipBecause(`no Chromium at ${CHROMIUM} for the booking page tests (apt-get install chromium)`);

let t: TestApp;
let context: BrowserContext;
let profile: string;
let customer: http.Server;
let customerOrigin: string;

before(async () => {
  if (skip) return;
  // A customer's own site on another origin, embedding the widget from the service.
  // `/any-origin` embeds with a publishable key that lists no origins (usable from any).
  customer = http.createServer((req, res) => {
    const key = req.url === '/any-origin' ? PAGE_KEY : CUSTOMER_KEY;
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>Northwind: talk to an advisor</title><script src="${t.url}/embed.js" defer></script></head>
<body><h1>Talk to an advisor</h1><booking-widget event-type-id="et_onboarding" publishable-key="${key}"></booking-widget></body></html>`);
  });
  await new Promise<void>((resolve) => customer.listen(0, '127.0.0.1', resolve));
  customerOrigin = `http://127.0.0.1:${(customer.address() as AddressInfo).port}`;
  const seed = testSeed();
  seed.organizations[0].api_keys.push({
    key: CUSTOMER_KEY,
    name: 'Customer site',
    scopes: ['event-types:read', 'bookings:create'],
    allowed_origins: [customerOrigin],
  });
  t = await startApp({ worker: true, seed });

  const { chromium } = await import('playwright-core');
  profile = fs.mkdtempSync(path.join(os.tmpdir(), 'widget-chromium-'));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_FLAGS,
    timezoneId: VISITOR_ZONE,
    locale: 'en-GB',
    viewport: { width: 1024, height: 900 },
  });
  context.setDefaultTimeout(15_000);
  fs.mkdirSync(ARTIFACTS, { recursive: true });
});

after(async () => {
  await context?.close();
  if (profile) fs.rmSync(profile, { recursive: true, force: true });
  await t?.close();
  if (customer) await new Promise<void>((resolve) => customer.close(() => resolve()));
});

async function openPage(eventTypeId: string, viewport = { width: 1024, height: 900 }): Promise<Page> {
  const page = await context.newPage();
  await page.setViewportSize(viewport);
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  (page as Page & { errors?: string[] }).errors = errors;
  const res = await page.goto(`${t.url}/book/${eventTypeId}?key=${PAGE_KEY}`);
  assert.equal(res?.status(), 200);
  await page
    .getByRole('button', { name: /^\d\d:\d\d/ })
    .first()
    .waitFor();
  return page;
}

const slotButtons = (page: Page): Locator => page.getByRole('button', { name: /^\d\d:\d\d to / });
const shownDay = (page: Page) => page.getByLabel('Date').inputValue();

async function apiSlots(eventTypeId: string, day: string, zone: string): Promise<{ start: string; end: string }[]> {
  const q = new URLSearchParams({ event_type_id: eventTypeId, start_date: day, end_date: day, timezone: zone });
  const res = await t.request('GET', `/v1/availability?${q}`, { key: KEYS.secret });
  assert.equal(res.status, 200, res.text);
  return res.body.slots;
}

/** The booking id the confirmation shows. */
async function confirmationId(page: Page): Promise<string> {
  const done = page.getByText(/booked|confirmed/i);
  await done.waitFor();
  const text = (await page.getByText(/^Reference: /).textContent()) ?? '';
  return text.replace('Reference: ', '').trim();
}

async function booking(id: string) {
  const res = await t.request('GET', `/v1/bookings/${id}`, { key: KEYS.secret });
  assert.equal(res.status, 200, res.text);
  return res.body.booking;
}

describe('the booking page in Chromium', { skip }, () => {
  it("shows free slots as HH:MM in the visitor's zone, changeable, and books one with an Idempotency-Key", async () => {
    const page = await openPage('et_intro_call');
    const zone = page.getByLabel('Time zone');
    assert.equal(await zone.inputValue(), VISITOR_ZONE, "the browser's zone first");
    assert.equal(await zone.locator('option').first().textContent(), VISITOR_ZONE);

    const day = await shownDay(page);
    const names = async () => slotButtons(page).evaluateAll((bs) => bs.map((b) => b.getAttribute('aria-label') ?? ''));
    const expected = (slots: { start: string }[], z: string) => slots.map((s) => DateTime.fromISO(s.start).setZone(z).toFormat('HH:mm'));
    assert.deepEqual(
      (await names()).map((n) => n.slice(0, 5)),
      expected(await apiSlots('et_intro_call', day, VISITOR_ZONE), VISITOR_ZONE),
    );

    await zone.selectOption('Europe/London');
    await page.getByRole('heading', { name: /\(Europe\/London\)/ }).waitFor();
    const london = await apiSlots('et_intro_call', day, 'Europe/London');
    await assertEventually(async () => (await names()).map((n) => n.slice(0, 5)).join(), expected(london, 'Europe/London').join());

    // move to the next day and back
    await page.getByRole('button', { name: 'Next day' }).click();
    await assertEventually(() => shownDay(page), DateTime.fromISO(day).plus({ days: 1 }).toISODate()!);
    await page.getByRole('button', { name: 'Previous day' }).click();
    await assertEventually(() => shownDay(page), day);
    await assertEventually(async () => (await names()).length, london.length);

    // the day's last slot: the first can pass the type's notice while the form is filled in
    const slot = london.at(-1)!;
    const hhmm = DateTime.fromISO(slot.start).setZone('Europe/London').toFormat('HH:mm');
    await page.getByRole('button', { name: new RegExp(`^${hhmm} to `) }).click();
    await page.getByLabel('Name').fill('Ada Lovelace');
    await page.getByLabel('Email').fill('ada@example.com');
    await page.getByLabel('Phone').fill('+44 20 7946 0958');
    await page.getByLabel('Company').fill('Analytical Engines');
    const topic = page.getByLabel('Topic');
    assert.deepEqual(await topic.locator('option').allTextContents(), ['Choose…', 'pensions', 'mortgages', 'other']);
    await topic.selectOption('mortgages');
    const posted = page.waitForRequest((r) => r.method() === 'POST' && r.url().endsWith('/v1/bookings'));
    await page.getByRole('button', { name: /Book/ }).click();
    const request = await posted;
    assert.match(request.headers()['idempotency-key'] ?? '', /^[0-9a-f-]{36}$/);
    assert.match(request.headers().authorization ?? '', new RegExp(`^Bearer ${PAGE_KEY}$`));

    const id = await confirmationId(page);
    await page.getByText(/^You're booked: /).waitFor();
    await page.screenshot({ path: path.join(ARTIFACTS, 'booked-desktop.png'), fullPage: true });
    const b = await booking(id);
    assert.equal(b.start_time, slot.start);
    assert.deepEqual(b.attendee, { name: 'Ada Lovelace', email: 'ada@example.com', phone: '+44 20 7946 0958', timezone: 'Europe/London' });
    assert.deepEqual(b.custom_fields, { company: 'Analytical Engines', topic: 'mortgages' });
    assert.deepEqual((page as Page & { errors?: string[] }).errors, []);
    await page.close();
  });

  it("shows the API's 409 message when the slot was taken meanwhile, and the day refreshed", async () => {
    const page = await openPage('et_onboarding');
    const chosen = slotButtons(page).last();
    const label = (await chosen.getAttribute('aria-label'))!;
    await chosen.click();
    await page.getByLabel('Name').fill('Late Visitor');
    await page.getByLabel('Email').fill('late@example.com');

    // someone else books that slot through the API first (onboarding has one host)
    const day = await shownDay(page);
    const slot = (await apiSlots('et_onboarding', day, VISITOR_ZONE)).find(
      (s) => DateTime.fromISO(s.start).setZone(VISITOR_ZONE).toFormat('HH:mm') === label.slice(0, 5),
    )!;
    const body = { event_type_id: 'et_onboarding', requested_time: slot.start, attendee: { name: 'First', email: 'first@example.com' } };
    assert.equal((await t.request('POST', '/v1/bookings', { key: KEYS.secret, body })).status, 201);
    const refused = await t.request('POST', '/v1/bookings', {
      key: KEYS.secret,
      body: { ...body, attendee: { name: 'X', email: 'x@example.com' } },
    });
    assert.equal(refused.status, 409);

    await page.getByRole('button', { name: /Book/ }).click();
    const alert = page.getByRole('alert');
    await assertEventually(async () => (await alert.textContent())?.trim(), refused.body.error.message);
    await page.screenshot({ path: path.join(ARTIFACTS, 'slot-taken.png'), fullPage: true });
    await assertEventually(async () => await page.getByRole('button', { name: label }).count(), 0);
    assert.equal(await page.getByLabel('Name').inputValue(), 'Late Visitor', 'what the visitor typed is kept');
    await page.close();
  });

  it('works at phone width: no sideways scrolling, touch-sized controls, a booking made', async () => {
    const page = await openPage('et_intro_call', { width: 360, height: 740 });
    const overflow = Number(await page.evaluate('document.documentElement.scrollWidth - window.innerWidth'));
    assert.ok(overflow <= 0, `page scrolls sideways by ${overflow}px`);
    // The first day shown is today when it still has a free slot, which late in the hosts' day
    // can be a single one: the grid is measured on next Tuesday, a day every host works.
    const now = DateTime.now().setZone(VISITOR_ZONE);
    const tuesday = now.plus({ days: (2 - now.weekday + 7) % 7 || 7 }).toISODate()!;
    await page.getByLabel('Date').fill(tuesday);
    await assertEventually(async () => (await slotButtons(page).count()) >= 8, true);
    const box = await slotButtons(page).first().boundingBox();
    assert.ok(box && box.height >= 44 && box.x >= 0 && box.x + box.width <= 360, JSON.stringify(box));
    const columns = await slotButtons(page).evaluateAll((bs) => new Set(bs.map((b) => b.getBoundingClientRect().left)).size);
    assert.ok(columns >= 2 && columns <= 4, `${columns} columns of slots`);

    await slotButtons(page).last().click();
    await page.getByLabel('Name').fill('Phone Visitor');
    await page.getByLabel('Email').fill('phone@example.com');
    await page.getByLabel('Company').fill('Pocket Ltd');
    const bookBox = await page.getByRole('button', { name: /Book/ }).boundingBox();
    assert.ok(bookBox && bookBox.x + bookBox.width <= 360);
    await page.screenshot({ path: path.join(ARTIFACTS, 'phone-form.png'), fullPage: true });
    await page.getByRole('button', { name: /Book/ }).click();
    const id = await confirmationId(page);
    await page.screenshot({ path: path.join(ARTIFACTS, 'booked-phone.png'), fullPage: true });
    assert.equal((await booking(id)).attendee.email, 'phone@example.com');
    await page.close();
  });

  it('says a request was received, not booked, when the host must confirm', async () => {
    const page = await openPage('et_planning_session');
    await slotButtons(page).last().click();
    await page.getByLabel('Name').fill('Careful Visitor');
    await page.getByLabel('Email').fill('careful@example.com');
    await page.getByRole('button', { name: /Book/ }).click();
    await page.getByText(/^Request received: /).waitFor();
    assert.equal(await page.getByText(/You're booked/).count(), 0);
    const id = ((await page.getByText(/^Reference: /).textContent()) ?? '').replace('Reference: ', '').trim();
    assert.equal((await booking(id)).event_type_id, 'et_planning_session');
    await page.close();
  });

  it('books with the keyboard alone', async () => {
    const page = await openPage('et_onboarding');
    // tag|accessible label or text|id of the focused element, looking into shadow roots (run in the page)
    const focused = async () =>
      String(
        await page.evaluate(`(() => {
      let el = document.activeElement;
      while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement;
      return el ? el.tagName.toLowerCase() + '|' + (el.getAttribute('aria-label') ?? el.textContent.trim()) + '|' + el.id : '';
    })()`),
      );
    // Tab from the top of the page to the first slot, passing the zone and day controls
    const passed: string[] = [];
    for (let i = 0; i < 20 && !/^button\|\d\d:\d\d to /.test(passed.at(-1) ?? ''); i++) {
      await page.keyboard.press('Tab');
      passed.push(await focused());
    }
    assert.ok(
      passed.some((f) => f.endsWith('|tz')),
      `time zone reachable: ${passed.join(' > ')}`,
    );
    assert.ok(
      passed.some((f) => f.startsWith('button|Next day')),
      'next day reachable',
    );
    const slotLabel = passed.at(-1)!.split('|')[1]!;
    await page.keyboard.press('Enter');
    assert.equal((await focused()).split('|')[2], 'f-name', 'choosing a slot moves focus to the form');
    await page.keyboard.type('Keyboard Visitor');
    await page.keyboard.press('Tab');
    await page.keyboard.type('keys@example.com');
    await page.keyboard.press('Tab'); // phone (optional)
    await page.keyboard.press('Tab'); // number of seats (optional)
    await page.keyboard.type('12');
    await page.keyboard.press('Tab');
    assert.match(await focused(), /^button\|Book \d\d:\d\d/);
    await page.keyboard.press('Enter');
    const id = await confirmationId(page);
    const b = await booking(id);
    assert.equal(b.attendee.name, 'Keyboard Visitor');
    assert.deepEqual(b.custom_fields, { seats: '12' });
    assert.equal(DateTime.fromISO(b.start_time).setZone(VISITOR_ZONE).toFormat('HH:mm'), slotLabel.slice(0, 5));
    await page.close();
  });

  it('renders every custom field type the event type describes, and sends typed values', async () => {
    const res = await t.request('POST', '/v1/event-types', {
      key: KEYS.secret,
      body: {
        team_id: 'team_support',
        name: 'Every field',
        slug: 'every-field',
        duration: 30,
        minimum_booking_notice: 0,
        workload: { prep: 0, meeting: 30, implementation: 0, admin: 0 },
        custom_fields: [
          { key: 'plan', label: 'Plan', type: 'SELECT', required: true, options: ['basic', 'pro'] },
          { key: 'seats', label: 'Seats', type: 'NUMBER', required: true },
          { key: 'notes', label: 'Notes', type: 'TEXTAREA', required: false },
          { key: 'nda', label: 'NDA signed', type: 'BOOLEAN', required: false },
          { key: 'areas', label: 'Areas', type: 'MULTISELECT', required: false, options: ['billing', 'api', 'sso'] },
          { key: 'start', label: 'Go-live date', type: 'DATE', required: false },
          { key: 'cc', label: 'Copy to', type: 'EMAIL', required: false },
        ],
      },
    });
    assert.equal(res.status, 201, res.text);
    const page = await openPage(res.body.event_type.id);
    await slotButtons(page).last().click(); // the first can be due in seconds: this type has no notice
    await page.getByLabel('Name').fill('Field Tester');
    await page.getByLabel('Email').fill('fields@example.com');
    assert.equal(await page.getByLabel('Plan').getAttribute('required'), '');
    await page.getByLabel('Plan').selectOption('pro');
    assert.equal(await page.getByLabel('Seats').getAttribute('type'), 'number');
    await page.getByLabel('Seats').fill('25');
    await page.getByLabel('Notes').fill('Migrating from a spreadsheet');
    await page.getByLabel('NDA signed').check();
    await page.getByRole('group', { name: /Areas/ }).getByLabel('api').check();
    await page.getByRole('group', { name: /Areas/ }).getByLabel('sso').check();
    await page.getByLabel('Go-live date').fill('2027-01-15');
    await page.getByRole('button', { name: /Book/ }).click();
    const b = await booking(await confirmationId(page));
    assert.deepEqual(b.custom_fields, {
      plan: 'pro',
      seats: 25,
      notes: 'Migrating from a spreadsheet',
      nda: true,
      areas: ['api', 'sso'],
      start: '2027-01-15',
    });
    await page.close();
  });

  /** Books the last slot of a customer's page at `url` as `email`; the POST's answer and the page. */
  async function bookEmbedded(url: string, name: string, email: string) {
    const page = await context.newPage();
    await page.goto(url);
    await slotButtons(page).last().click();
    await page.getByLabel('Name').fill(name);
    await page.getByLabel('Email').fill(email);
    const posted = page.waitForResponse((r) => r.request().method() === 'POST' && r.url() === `${t.url}/v1/bookings`);
    await page.getByRole('button', { name: /Book/ }).click();
    const response = await posted;
    assert.equal(response.status(), 201);
    assert.equal((await booking(await confirmationId(page))).attendee.email, email);
    return { page, response };
  }

  it("runs embedded on a customer's own origin: api-base from the script, CORS with the key's allowed origin", async () => {
    const { page, response } = await bookEmbedded(customerOrigin, 'Embedded Visitor', 'embedded@example.com');
    assert.equal(response.headers()['access-control-allow-origin'], customerOrigin);
    await page.screenshot({ path: path.join(ARTIFACTS, 'embedded-customer-site.png'), fullPage: true });
    await page.close();
  });

  it('runs embedded on any origin with a publishable key that lists none: the preflight is answered', async () => {
    // the same customer server under another name: an origin no key lists
    const elsewhere = customerOrigin.replace('127.0.0.1', 'localhost');
    const { page, response } = await bookEmbedded(`${elsewhere}/any-origin`, 'Anywhere Visitor', 'anywhere@example.com');
    assert.equal(response.headers()['access-control-allow-origin'], elsewhere);
    await page.close();
  });

  it("says the origin may not be allowed when the key refuses the page's origin (the browser hides that 403)", async () => {
    // the customer's key lists 127.0.0.1's origin only; decisions.md §3 gives another origin's
    // refusal no Access-Control-Allow-Origin, so the page sees a failed request, not the message
    const elsewhere = customerOrigin.replace('127.0.0.1', 'localhost');
    const page = await context.newPage();
    await page.goto(`${elsewhere}/`);
    await assertEventually(
      async () => /origin may not be allowed for this key/.test((await page.getByRole('alert').textContent()) ?? ''),
      true,
    );
    await page.close();
  });

  it("shows the API's message when the page cannot load (unknown event type)", async () => {
    const page = await context.newPage();
    await page.goto(`${t.url}/book/et_missing?key=${PAGE_KEY}`);
    await assertEventually(async () => (await page.getByRole('alert').textContent())?.trim(), 'event type "et_missing" not found');
    await page.close();
  });
});

describe('GET /embed.js and GET /book/{id} (HTTP)', () => {
  let app: TestApp;
  before(async () => {
    app = await startApp({ seed: null });
  });
  after(async () => app?.close());

  it('serves the script without a key, cacheable and loadable from any origin', async () => {
    const res = await app.request('GET', '/embed.js');
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/javascript/);
    assert.equal(res.headers.get('access-control-allow-origin'), '*');
    assert.match(res.text, /customElements\.define\(TAG, BookingWidget\)/);
    const etag = res.headers.get('etag')!;
    const again = await app.request('GET', '/embed.js', { headers: { 'if-none-match': etag } });
    assert.equal(again.status, 304);
  });

  it('serves the page with the element, the attributes escaped, under a strict CSP', async () => {
    const res = await app.request('GET', `/book/${encodeURIComponent('et_"><script>x</script>')}?key=${KEYS.publishable}`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(
      res.text,
      /<booking-widget event-type-id="et_&quot;&gt;&lt;script&gt;x&lt;\/script&gt;" publishable-key="pk_test_northwind_demo_booking_page_0001">/,
    );
    assert.doesNotMatch(res.text, /<script>x/);
    assert.match(res.headers.get('content-security-policy') ?? '', /script-src 'self'/);
  });

  it('refuses a page without a publishable key, and one given a secret key, in the error envelope', async () => {
    const none = await app.request('GET', '/book/et_intro_call');
    assert.equal(none.status, 400);
    assert.equal(none.body.error.code, 'validation_error');
    const secret = await app.request('GET', `/book/et_intro_call?key=${KEYS.secret}`);
    assert.equal(secret.status, 400);
    assert.match(secret.body.error.message, /publishable key/);
    assert.doesNotMatch(secret.text, /sk_test_/, 'the secret is not echoed');
  });
});

async function assertEventually<T>(read: () => Promise<T>, expected: T, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  while (Date.now() < deadline) {
    last = await read();
    if (JSON.stringify(last) === JSON.stringify(expected)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.deepEqual(last, expected);
}
