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
    assert.throws(() => validateSeed(withType(change)), (e: Error) => e instanceof SeedError && path.test(e.message), JSON.stringify(change));

  it('accepts the demo file', () => {
    assert.ok(validateSeed(demoSeed()));
  });

  it('refuses what POST /event-types refuses, naming the path', () => {
    refused({ slot_interval: 1 }, /^organizations\[0\]\.event_types\[0\]\.slot_interval: must be between 5 and 1440/);
    refused({ buffer_after: 1441 }, /event_types\[0\]\.buffer_after: /);
    refused({ slug: 'Intro_Call' }, /event_types\[0\]\.slug: lower-case letters and digits/);
    refused({ custom_fields: [{ key: 'has space', label: 'x', type: 'TEXT' }] }, /custom_fields\[0\]\.key: must match/);
    refused({ name: 'x'.repeat(201) }, /event_types\[0\]\.name: /);
  });
});
