/**
 * The served OpenAPI document, put through the tools an integrator would use: Redocly CLI's
 * `recommended` rules and Spectral's `spectral:oas` (0 errors, 0 warnings; the few rules turned
 * off say why in redocly.yaml and .spectral.yaml), and three client generators whose output must
 * compile under `tsc --strict`, together with a short program using it the way a client would
 * (named operations, the Booking type, the enums). Every tool runs from node_modules, offline.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import type { TestApp } from '../helpers/app.ts';
import { startApp } from '../helpers/app.ts';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
// no telemetry, no update checks: the tools run offline
const ENV = {
  ...process.env,
  REDOCLY_TELEMETRY: 'off',
  REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
  DO_NOT_TRACK: '1',
  NO_UPDATE_NOTIFIER: '1',
  CI: 'true',
};

/** The JavaScript file of a package's command, run with this Node (not whatever `node` is on PATH). */
function bin(pkg: string, name: string): string {
  const file = path.join(ROOT, 'node_modules', pkg, 'package.json');
  const manifest = JSON.parse(fs.readFileSync(file, 'utf8')) as { bin: string | Record<string, string> };
  const rel = typeof manifest.bin === 'string' ? manifest.bin : manifest.bin[name];
  assert.ok(rel, `${pkg} has a ${name} command`);
  return path.join(ROOT, 'node_modules', pkg, rel);
}

async function tool(pkg: string, name: string, args: string[], cwd: string): Promise<{ stdout: string; stderr: string; code: number }> {
  try {
    const options = { cwd, env: ENV, maxBuffer: 64 * 1024 * 1024, timeout: 120_000 };
    const { stdout, stderr } = await run(process.execPath, [bin(pkg, name), ...args], options);
    return { stdout, stderr, code: 0 };
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; code?: number };
    return { stdout: e.stdout ?? '', stderr: e.stderr ?? String(err), code: typeof e.code === 'number' ? e.code : 1 };
  }
}

/** tsc --strict over a directory of generated code and the program using it. */
function typecheck(dir: string) {
  const files = fs
    .readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => path.join(dir, f));
  return tool(
    'typescript',
    'tsc',
    [
      '--strict',
      '--noEmit',
      '--pretty',
      'false',
      '--target',
      'es2022',
      '--module',
      'nodenext',
      '--moduleResolution',
      'nodenext',
      '--lib',
      'es2022,dom',
      '--types',
      'node',
      '--typeRoots',
      path.join(ROOT, 'node_modules/@types'),
      ...files,
    ],
    dir,
  );
}

// What a client writes against each generator's output. A wrong name or a loose type fails tsc.
const USAGE: Record<string, string> = {
  'openapi-typescript': `
import type { components, operations, webhooks } from './schema';
type Booking = components['schemas']['Booking'];
export const status: Booking['status'] = 'SCHEDULED';
// @ts-expect-error not a booking status
export const wrong: Booking['status'] = 'LOST';
export const code: components['schemas']['ErrorCode'] = 'idempotency_key_reused';
type Created = operations['createBooking']['responses'][201]['content']['application/json'];
export const bookingId = (b: Created): string => b.booking.id;
type Cancelled = webhooks['BOOKING_CANCELLED']['post']['requestBody']['content']['application/json'];
export const event = (p: Cancelled): 'BOOKING_CANCELLED' => p.event;
export const events: components['schemas']['Webhook']['events'] = ['BOOKING_CREATED', 'ASSIGNMENT_CHANGED'];
`,
  '@hey-api/openapi-ts': `
import { createBooking, listBookings, rescheduleBooking } from './index';
import type { Booking, ErrorCode, WebhookEventName } from './types.gen';
export const status: Booking['status'] = 'CANCELLED';
// @ts-expect-error not an error code
export const wrong: ErrorCode = 'oops';
export const event: WebhookEventName = 'BOOKING_NO_SHOW';
export async function flow(): Promise<string | undefined> {
  const created = await createBooking({
    body: { event_type_id: 'et_1', requested_time: '2026-12-01T09:00:00Z', attendee: { name: 'Ada', email: 'ada@example.com' } },
    headers: { 'Idempotency-Key': 'k1' },
  });
  const id = created.data?.booking.id ?? '';
  await rescheduleBooking({ path: { id }, body: { start_time: '2026-12-02T09:00:00Z' } });
  const page = await listBookings({ query: { limit: 10 } });
  return page.data?.pagination.next_cursor ?? undefined;
}
`,
  orval: `
import { createBooking, rescheduleBooking } from './api';
import type { Booking, ErrorCode } from './api';
export const status: Booking['status'] = 'NO_SHOW';
export const code: ErrorCode = 'terminal_state';
export async function flow(): Promise<void> {
  const created = await createBooking({
    event_type_id: 'et_1',
    requested_time: '2026-12-01T09:00:00Z',
    attendee: { name: 'Ada', email: 'ada@example.com' },
  });
  if (created.status === 201) await rescheduleBooking(created.data.booking.id, { start_time: '2026-12-02T09:00:00Z' });
}
`,
};

let t: TestApp;
let dir: string;
let spec: string;
before(async () => {
  t = await startApp({ seed: null });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'openapi-tools-'));
  spec = path.join(dir, 'openapi.json');
  const res = await t.request('GET', '/v1/openapi.json');
  assert.equal(res.status, 200);
  fs.writeFileSync(spec, res.text);
});
after(async () => {
  await t?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe("the OpenAPI document through the ecosystem's tools", () => {
  it('Redocly CLI (recommended): 0 errors, 0 warnings', async () => {
    const res = await tool('@redocly/cli', 'redocly', ['lint', spec, '--config', path.join(ROOT, 'redocly.yaml'), '--format', 'json'], dir);
    type Report = { totals: { errors: number; warnings: number }; problems: unknown[] };
    const report = JSON.parse(res.stdout.slice(res.stdout.indexOf('{'))) as Report;
    assert.deepEqual(
      { errors: report.totals.errors, warnings: report.totals.warnings },
      { errors: 0, warnings: 0 },
      JSON.stringify(report.problems, null, 1).slice(0, 4000),
    );
  });

  it('Spectral (spectral:oas): 0 errors, 0 warnings', async () => {
    const out = path.join(dir, 'spectral.json');
    const args = ['lint', spec, '--ruleset', path.join(ROOT, '.spectral.yaml'), '--format', 'json', '--output', out, '--quiet'];
    const res = await tool('@stoplight/spectral-cli', 'spectral', args, dir);
    assert.ok(fs.existsSync(out), res.stderr);
    const results = JSON.parse(fs.readFileSync(out, 'utf8')) as { code: string; message: string; path: string[] }[];
    assert.deepEqual(
      results.map((r) => `${r.code}: ${r.message} at ${r.path.join('.')}`),
      [],
    );
  });

  it('openapi-typescript, @hey-api/openapi-ts and orval generate clients that compile under tsc --strict', async () => {
    const out = (name: string) => path.join(dir, name.replace(/[@/]/g, '_'));
    const args: Record<string, [string, string, string[]]> = {
      'openapi-typescript': ['openapi-typescript', 'openapi-typescript', [spec, '-o', path.join(out('openapi-typescript'), 'schema.ts')]],
      '@hey-api/openapi-ts': ['@hey-api/openapi-ts', 'openapi-ts', ['--input', spec, '--output', out('@hey-api/openapi-ts')]],
      orval: ['orval', 'orval', ['--input', spec, '--output', path.join(out('orval'), 'api.ts'), '--client', 'fetch']],
    };
    const generators = Object.entries(args).map(([name, [pkg, command, argv]]) => [name, tool(pkg, command, argv, dir)] as const);
    // generate and type-check the three in parallel: each tsc takes a few seconds
    const results = await Promise.all(
      generators.map(async ([name, generated]) => {
        const gen = await generated;
        assert.equal(gen.code, 0, `${name}: ${gen.stderr}\n${gen.stdout}`.slice(0, 3000));
        fs.writeFileSync(path.join(out(name), 'usage.ts'), USAGE[name]!);
        return [name, await typecheck(out(name))] as const;
      }),
    );
    for (const [name, tsc] of results) assert.equal(tsc.code, 0, `${name}: tsc --strict\n${tsc.stdout}${tsc.stderr}`.slice(0, 4000));
  });
});
