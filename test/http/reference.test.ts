import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { TestApp } from '../helpers/app.ts';
import { startApp } from '../helpers/app.ts';
import { CHROMIUM, CHROMIUM_FLAGS, skipBecause } from '../helpers/components.ts';
import { INFO } from '../../src/http/openapi-docs.ts';

let t: TestApp;
before(async () => {
  t = await startApp({ seed: null });
});
after(async () => t?.close());

describe('GET /docs: the API reference page', () => {
  it('redirects /docs to /docs/ and serves the page without a key, titled after the product', async () => {
    const bare = await fetch(`${t.url}/docs`, { redirect: 'manual' });
    assert.equal(bare.status, 301);
    assert.equal(bare.headers.get('location'), '/docs/');
    const page = await t.request('GET', '/docs/');
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(page.text, new RegExp(`<title>${INFO.title} reference</title>`));
    assert.doesNotMatch(page.text, /swagger/i);
  });

  it('loads nothing from another site: every script and style is local, fonts and telemetry are off', async () => {
    const html = (await t.request('GET', '/docs/')).text;
    const urls = [...html.matchAll(/<(?:script|link|img|iframe)\b[^>]*\b(?:src|href)\s*=\s*["']([^"']+)["']/gi)].map((m) => m[1]!);
    assert.ok(urls.length > 0, 'the page loads its script');
    for (const url of urls) assert.doesNotMatch(url, /^(?:[a-z]+:)?\/\//i, `${url} is on another site`);
    assert.doesNotMatch(html, /@import|url\(\s*["']?(?:https?:)?\/\//i);
    assert.match(html, /"url": "\/v1\/openapi\.json"/);
    assert.match(html, /"withDefaultFonts": false/);
    assert.match(html, /"telemetry": false/);
    const script = await fetch(
      new URL(
        urls.find((u) => u.endsWith('.js'))!,
        `${t.url}/docs/`,
      ),
    );
    assert.equal(script.status, 200);
    assert.match(script.headers.get('content-type') ?? '', /javascript/);
    assert.ok((await script.text()).length > 1_000_000, 'the whole reference bundle, served from the package');
  });

  it('renders the guide and the examples in a real browser, asking only this server for anything', async (ctx) => {
    if (!fs.existsSync(CHROMIUM)) return ctx.skip(skipBecause(`no Chromium at ${CHROMIUM} (set CHROMIUM_PATH)`));
    const { chromium } = await import('playwright-core');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-page-'));
    const browser = await chromium.launchPersistentContext(dir, {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_FLAGS,
      viewport: { width: 1280, height: 2000 },
    });
    try {
      const page = await browser.newPage();
      const requested = new Set<string>();
      page.on('request', (r) => requested.add(r.url()));
      await page.goto(`${t.url}/docs/`);
      // The reference renders its sections progressively, later under load: each text is waited
      // for (as a reader would), where one snapshot of the page at a fixed moment missed some.
      for (const text of ['Keys and scopes', 'Webhook signatures', 'Create a booking', 'Ada Lovelace', 'bkg_5f0c2a9e41d7b3a08c6e1f24']) {
        const shown = await page
          .waitForFunction(`document.documentElement.outerHTML.includes(${JSON.stringify(text)})`, undefined, {
            polling: 250,
            timeout: 60_000,
          })
          .then(() => true)
          .catch(() => false);
        assert.ok(shown, `the page shows "${text}"`);
      }
      const elsewhere = [...requested].filter((u) => !u.startsWith(`${t.url}/`) && !/^(?:data|blob):/.test(u));
      assert.deepEqual(elsewhere, [], 'the page asks no other site');
      assert.ok(requested.has(`${t.url}/v1/openapi.json`), 'the page reads the document from this server');
    } finally {
      await browser.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
