import assert from 'node:assert/strict';
import { it } from 'node:test';
import { longerThan } from '../../src/lib/characters.ts';

it('counts code points: a surrogate pair is one character, a lone surrogate one too', () => {
  assert.equal(longerThan('😀'.repeat(3), 3), false);
  assert.equal(longerThan('😀'.repeat(4), 3), true);
  assert.equal(longerThan('ab😀', 3), false);
  assert.equal(longerThan('ab😀c', 3), true);
  assert.equal(longerThan('\ud800\ud800', 1), true, 'two lone high surrogates are two');
  assert.equal(longerThan('\ude00\ud83d', 1), true, 'a low then a high surrogate is no pair');
  assert.equal(longerThan('x'.repeat(500), 500), false);
  assert.equal(longerThan('x'.repeat(501), 500), true);
  assert.equal(longerThan('', 0), false);
});
