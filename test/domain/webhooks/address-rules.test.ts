import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { refusedAddressReason } from '../../../src/domain/webhooks/address-rules.ts';
import { checkUrlShape } from '../../../src/domain/webhooks/url-rules.ts';

describe('refusedAddressReason', () => {
  it('refuses every non-public range and allows public unicast', () => {
    for (const a of [
      '127.0.0.1',
      '10.1.1.1',
      '172.16.0.1',
      '192.168.0.1',
      '169.254.169.254',
      '0.0.0.0',
      '100.64.0.1',
      '224.0.0.1',
      '255.255.255.255',
      '::1',
      '::',
      'fe80::1',
      'fc00::1',
      'fd00::1',
      'ff02::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      '[::1]',
      // IPv4-compatible (deprecated ::/96) spellings, which ipaddr.js calls unicast
      '::127.0.0.1',
      '::7f00:1',
      '::a00:1',
      '::808:808',
      '::2',
    ]) {
      assert.ok(refusedAddressReason(a), `${a} refused`);
    }
    for (const a of ['93.184.216.34', '8.8.8.8', '1.1.1.1', '2606:4700::1111', '::ffff:8.8.8.8', '[2001:4860:4860::8888]']) {
      assert.equal(refusedAddressReason(a), null, `${a} allowed`);
    }
    assert.equal(refusedAddressReason('not-an-ip'), 'is not an IP address');
  });

  it('refuses all of 10/8, 172.16/12, 192.168/16 and 127/8 (property)', () => {
    const octet = fc.integer({ min: 0, max: 255 });
    fc.assert(
      fc.property(octet, octet, octet, (b, c, d) => {
        assert.ok(refusedAddressReason(`10.${b}.${c}.${d}`));
        assert.ok(refusedAddressReason(`127.${b}.${c}.${d}`));
        assert.ok(refusedAddressReason(`192.168.${c}.${d}`));
        assert.ok(refusedAddressReason(`172.${16 + (b % 16)}.${c}.${d}`));
        assert.ok(refusedAddressReason(`::ffff:192.168.${c}.${d}`));
      }),
    );
  });
});

describe('checkUrlShape', () => {
  const strict = { allowPrivate: false };
  it('sees through numeric spellings of loopback (the WHATWG parser normalises them)', () => {
    for (const u of [
      'https://2130706433/',
      'https://0x7f.1/',
      'https://017700000001/',
      'https://127.0.0.1./',
      'https://[::ffff:127.0.0.1]/',
      'https://localhost./',
      'https://[::127.0.0.1]/',
      'https://[0:0:0:0:0:0:7f00:1]/',
      'https://127.1/',
      'https://%31%32%37.0.0.1/',
      'https://127。0。0。1/',
    ]) {
      assert.throws(
        () => checkUrlShape(u, strict),
        (e: Error & { field?: string }) => e.field === 'url',
        u,
      );
    }
  });

  it('lifts only the address rules when private targets are allowed', () => {
    assert.doesNotThrow(() => checkUrlShape('https://127.0.0.1:8443/x', { allowPrivate: true }));
    assert.doesNotThrow(() => checkUrlShape('https://localhost/x', { allowPrivate: true }));
    assert.throws(() => checkUrlShape('http://127.0.0.1/x', { allowPrivate: true }), /https/);
    assert.throws(() => checkUrlShape('https://u:p@127.0.0.1/x', { allowPrivate: true }), /credentials/);
  });
});
