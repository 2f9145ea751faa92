import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { zoneName } from '../../src/lib/zones.ts';

describe('the one time-zone rule', () => {
  it('takes IANA names and answers them as IANA writes them', () => {
    assert.equal(zoneName('Europe/Berlin'), 'Europe/Berlin');
    assert.equal(zoneName('europe/london'), 'Europe/London');
    assert.equal(zoneName('utc'), 'UTC');
    assert.equal(zoneName('AMERICA/NEW_YORK'), 'America/New_York');
    assert.equal(zoneName('Etc/GMT-1'), 'Etc/GMT-1');
  });

  it('keeps an alias as written instead of replacing it', () => {
    assert.equal(zoneName('US/Pacific'), 'US/Pacific');
    assert.equal(zoneName('Asia/Kolkata'), 'Asia/Kolkata');
    assert.equal(zoneName('GMT'), 'GMT');
  });

  it('refuses UTC offsets, which Intl takes but are not names, and unknown names', () => {
    for (const value of ['+01:00', '-0500', '+00:00', 'Z', 'UTC+1', 'Mars/Base', '', ' Europe/Berlin']) {
      assert.equal(zoneName(value), undefined, value);
    }
  });
});
