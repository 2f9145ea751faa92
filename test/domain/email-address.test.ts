import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isEmailAddress } from '../../src/domain/email-address.ts';

describe('the one email rule', () => {
  it('takes everyday and internationalized addresses', () => {
    for (const email of [
      'ada@example.com',
      'a+tag@sub.example.co.uk',
      "o'brien@example.ie",
      'first.last@example.org',
      'zoë@bücher.example',
      'a@example.xn--p1ai',
      `${'x'.repeat(64)}@example.com`,
    ]) {
      assert.equal(isEmailAddress(email), true, email);
    }
  });

  it('refuses what no mail server we send through takes from a booking form', () => {
    for (const email of [
      'not-an-email',
      'a@x..example',
      '.a@example.com',
      'a.@example.com',
      'a..b@example.com',
      'a@-x.example',
      'a@x-.example',
      'a@[127.0.0.1]',
      'a@1.2.3.4',
      'a@localhost',
      'a@example.c',
      'a@example.com.',
      'a b@example.com',
      '"a"@example.com',
      'a@x_y.example',
      'a\u0000@example.com',
      'a\u202eb@example.com',
      'a\u200bb@example.com',
      'a\u00a0b@example.com',
      `${'x'.repeat(65)}@example.com`,
      `a@${'x'.repeat(250)}.com`,
    ]) {
      assert.equal(isEmailAddress(email), false, JSON.stringify(email));
    }
  });
});
