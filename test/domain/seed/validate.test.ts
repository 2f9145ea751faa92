import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SeedError, validateSeed } from '../../../src/domain/seed/validate.ts';
import { demoSeed } from '../../helpers/fixtures.ts';

// A seeded event type must be one the API could have made: the same bounds and patterns.
describe('validateSeed: event types within the API bounds', () => {
  const withType = (change: Record<string, unknown>) => {
    const seed = demoSeed();
    Object.assign(seed.organizations[0].event_types[0], change);
    return seed;
  };
  const refused = (change: Record<string, unknown>, path: RegExp) =>
    assert.throws(
      () => validateSeed(withType(change)),
      (e: Error) => e instanceof SeedError && path.test(e.message),
      JSON.stringify(change),
    );

  it('accepts the demo file', () => {
    assert.ok(validateSeed(demoSeed()));
  });

  it('refuses what POST /event-types refuses, naming the path', () => {
    refused({ slot_interval: 1 }, /^organizations\[0\]\.event_types\[0\]\.slot_interval: must be between 5 and 1440/);
    refused({ buffer_after: 1441 }, /event_types\[0\]\.buffer_after: /);
    refused({ slug: 'Intro_Call' }, /event_types\[0\]\.slug: lower-case letters and digits/);
    refused({ custom_fields: [{ key: 'has space', label: 'x', type: 'TEXT' }] }, /custom_fields\[0\]\.key: must match/);
    refused({ name: 'x'.repeat(201) }, /event_types\[0\]\.name: /);
    // et_intro_call is team_advisors'; Priya (…1b03) is in team_support
    refused(
      { host_ids: ['3b9a4c1e-7d2f-4e8a-9c51-2f6d8e0a1b01', '3b9a4c1e-7d2f-4e8a-9c51-2f6d8e0a1b03'] },
      /^organizations\[0\]\.event_types\[0\]\.host_ids\[1\]: member "3b9a4c1e-7d2f-4e8a-9c51-2f6d8e0a1b03" is not in team "team_advisors"/,
    );
  });
});

describe('validateSeed: calendars', () => {
  it('takes createdAt and updatedAt as date-times, updatedAt not before createdAt', () => {
    const seed = demoSeed();
    Object.assign(seed.organizations[0].calendars[0], { createdAt: '2026-01-01T00:00:00Z', updatedAt: '2025-12-31T00:00:00Z' });
    assert.throws(
      () => validateSeed(seed),
      (e: Error) => e instanceof SeedError && /^organizations\[0\]\.calendars\[0\]\.updatedAt: before createdAt/.test(e.message),
    );
    Object.assign(seed.organizations[0].calendars[0], { createdAt: undefined, updatedAt: '2025-12-31T00:00:00Z' });
    assert.throws(
      () => validateSeed(seed),
      (e: Error) => e instanceof SeedError && /calendars\[0\]\.updatedAt: given without createdAt/.test(e.message),
    );
    Object.assign(seed.organizations[0].calendars[0], { createdAt: 'yesterday', updatedAt: undefined });
    assert.throws(
      () => validateSeed(seed),
      (e: Error) => e instanceof SeedError && /calendars\[0\]\.createdAt: not an ISO 8601 date-time/.test(e.message),
    );
  });
});
