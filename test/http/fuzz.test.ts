import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestApp } from '../helpers/app.ts';
import { startApp } from '../helpers/app.ts';
import { KEYS } from '../helpers/fixtures.ts';
import type { KnownIds, Operation } from '../fuzz/engine.ts';
import { fuzzOperation, operationsOf, prepare } from '../fuzz/engine.ts';
import { NOW } from './bookings-helpers.ts';

/**
 * Every operation of /v1/openapi.json against hostile path ids, queries and bodies (wrong
 * types, huge strings, NUL, lone surrogates, deep nesting, prototype keys, impossible dates,
 * repeated parameters): never a 5xx, every 4xx in the envelope with X-Request-Id, nothing
 * written by a refused request. A few cases per operation here; `npm run fuzz` runs thousands.
 * FUZZ_RUNS and FUZZ_SEED override the defaults (a failure prints the seed).
 */

const RUNS = Number(process.env.FUZZ_RUNS ?? 12);
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 1_000_000);

let t: TestApp;
let ops: Operation[];
let ids: KnownIds;
before(async () => {
  t = await startApp({ now: NOW });
  ops = operationsOf((await t.request('GET', '/v1/openapi.json')).body);
  ids = await prepare((method, path, body) => t.request(method, path, { key: KEYS.secret, body }));
});
after(async () => t?.close());

describe(`fuzzing every operation of the OpenAPI document (${RUNS} cases each, seed ${SEED})`, () => {
  it('covers every keyed operation of the document', () => {
    assert.ok(ops.length >= 30, `${ops.length} operations`);
  });

  it('never a 5xx, always the envelope on 4xx, nothing written by a refusal', async () => {
    const violations = [];
    for (const [i, op] of ops.entries()) {
      const report = await fuzzOperation(t.url, t.db.pool, op, ids, RUNS, SEED + i);
      violations.push(...report.violations);
    }
    assert.deepEqual(
      violations
        .slice(0, 5)
        .map(
          (v) =>
            `${v.operation}: ${v.problem} (${v.status}) for ${v.request.method} ${v.request.url.slice(0, 200)} ` +
            `body ${v.request.body?.slice(0, 200)} → ${v.response.slice(0, 300)}`,
        ),
      [],
      `seed ${SEED}: ${violations.length} violations`,
    );
  });
});
