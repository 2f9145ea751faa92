import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isRawJson, mayChangeNumbers, parseExact } from '../../src/lib/exact-json.ts';

describe('parseExact: numbers a double would change keep their literal', () => {
  it('writes every such literal back as it came, in its place', () => {
    for (const literal of [
      '12345678901234567890',
      '1.0',
      '1.50',
      '1e3',
      '1E+3',
      '-0',
      '-0.0',
      '0.1000000000000000055511151231257827',
      '0.0000001',
      '100000000000000000000000',
      '52.520008123456789',
      '-8.407381133124667',
      '8909558845.9866315',
    ]) {
      const text = `{"b":[${literal}],"a":{"n":${literal}}}`;
      const parsed = parseExact(text) as { b: unknown[]; a: { n: unknown } };
      assert.ok(isRawJson(parsed.a.n), literal);
      assert.equal(JSON.stringify(parsed), text, literal);
    }
  });

  it('keeps a number that writes back the same as a plain number', () => {
    const parsed = parseExact('{"a":12345678901234,"b":0.30000000000000004,"c":-1.5,"d":0.000001,"e":"1e5 and 1.0"}');
    assert.deepEqual(parsed, { a: 12345678901234, b: 0.30000000000000004, c: -1.5, d: 0.000001, e: '1e5 and 1.0' });
  });

  it('leaves a number beyond a double as Infinity, for the checks that refuse it', () => {
    assert.equal((parseExact('{"n":1e999}') as { n: number }).n, Infinity);
  });

  it('takes the plain parse when no number can change', () => {
    assert.equal(mayChangeNumbers('{"a":1,"b":[2.5,-3],"c":"x"}'), false);
    assert.equal(mayChangeNumbers('{"a":1.0}'), true);
  });
});
