import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as eventTypes from '../../../src/db/queries/event-types.ts';
import { freeHostsAt } from '../../../src/domain/availability/find-slots.ts';
import { loadSeed } from '../../../src/domain/seed/load.ts';
import { validateSeed } from '../../../src/domain/seed/validate.ts';
import type { TestDatabase } from '../../helpers/db.ts';
import { createTestDatabase } from '../../helpers/db.ts';
import { testSeed } from '../../helpers/fixtures.ts';

// A single slot check (booking create and reschedule) reads busy time only as far as its event
// type can reach: its whole local day, for the daily cap, and its own buffered meeting. These
// cases sit at the edge of that reach.
const HOST = 'c0000000-0000-4000-8000-000000000001';
const NOW = new Date('2027-01-01T00:00:00Z');
let db: TestDatabase;

before(async () => {
  db = await createTestDatabase();
  const seed = testSeed();
  const allWeek = [{ days: ['MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT', 'SUN'], start: '00:00', end: '24:00' }];
  const type = (id: string, duration: number, bufferAfter: number) => ({
    id,
    team_id: 'team_reach',
    name: id,
    slug: id.replace('_', '-'),
    description: null,
    duration,
    slot_interval: 30,
    buffer_before: 0,
    buffer_after: bufferAfter,
    minimum_booking_notice: 0,
    scheduling_type: 'SOLO',
    requires_confirmation: false,
    workload: { prep: 0, meeting: duration, implementation: 0, admin: 0 },
    custom_fields: [],
  });
  seed.organizations.push({
    id: 'org_reach',
    name: 'Reach',
    cancellation_policy: { enabled: true, cutoff_minutes: 0 },
    teams: [{ id: 'team_reach', name: 'Reach' }],
    members: [
      {
        // UTC+14: a local day runs from 10:00 UTC the day before
        id: HOST,
        team_id: 'team_reach',
        name: 'Kiri',
        email: 'kiri@reach.example',
        avatar_url: null,
        role: 'MEMBER',
        skills: [],
        is_active: true,
        timezone: 'Pacific/Kiritimati',
        max_bookings_per_day: 1,
        working_hours: allWeek,
        out_of_office: [],
      },
    ],
    event_types: [type('et_short', 30, 0), type('et_long', 1440, 1440)],
    calendars: [],
    api_keys: [],
  });
  await loadSeed(db.pool, validateSeed(seed));
});
after(() => db.drop());

async function hold(id: string, start: string, minutes: number): Promise<void> {
  const s = new Date(start);
  await db.pool.query(
    `insert into bookings (id, organization_id, mode, event_type_id, status, start_time, end_time, attendee)
     values ($1, 'org_reach', 'test', 'et_short', 'SCHEDULED', $2, $3, '{"name":"R","email":"r@example.com"}')`,
    [id, s, new Date(s.getTime() + minutes * 60_000)],
  );
  await db.pool.query(
    `insert into booking_members (booking_id, member_id, mode, start_time, during) values ($1, $2, 'test', $3, tstzrange($3, $4))`,
    [id, HOST, s, new Date(s.getTime() + minutes * 60_000)],
  );
}

async function listed(eventTypeId: string, start: string): Promise<boolean> {
  const eventType = (await eventTypes.findVisible(db.pool, 'org_reach', eventTypeId))!;
  const at = await freeHostsAt(db.pool, { organizationId: 'org_reach', mode: 'test', eventType, now: NOW, start: new Date(start) });
  return at.listed;
}

describe('busy time a slot check reads', () => {
  it('counts a booking 23 hours earlier on the same local day against the daily cap', async () => {
    // local 2027-02-10 00:30 and 23:30 (Kiritimati) are 2027-02-09 10:30Z and 2027-02-10 09:30Z
    assert.equal(await listed('et_short', '2027-02-10T09:30:00Z'), true);
    await hold('bkg_reach_cap', '2027-02-09T10:30:00Z', 30);
    assert.equal(await listed('et_short', '2027-02-10T09:30:00Z'), false, 'the cap of 1 is reached that local day');
    assert.equal(await listed('et_short', '2027-02-10T10:30:00Z'), true, 'the next local day is free');
  });

  it('sees a booking 47 hours after the start of a 24-hour meeting with a 24-hour buffer', async () => {
    assert.equal(await listed('et_long', '2027-03-01T10:00:00Z'), true);
    await hold('bkg_reach_long', '2027-03-03T09:00:00Z', 30);
    assert.equal(await listed('et_long', '2027-03-01T10:00:00Z'), false);
  });
});
