// The API reference page at /docs in Chromium: rendered from /openapi.json, no axe violations,
// no console or CSP errors, usable at phone width.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { axeViolations } from '../helpers/axe.js';
import { describeInChromium } from '../helpers/browser-stores.js';

await describeInChromium('API reference page in Chromium', (s) => {
  const viewport = { width: 390, height: 844 };

  it('lists every operation with its examples and passes axe at phone width', async () => {
    const context = await s.newContext({ viewport, bypassCSP: true });
    const page = await context.newPage();
    const errors: string[] = [];
    // A failed load is reported by its response (the browser's own favicon request aside).
    page.on('console', (m) => {
      if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) errors.push(m.text());
    });
    page.on('response', (r) => {
      if (r.status() >= 400 && !r.url().endsWith('/favicon.ico')) errors.push(`${r.status()} ${r.url()}`);
    });
    const res = await page.goto(`${s.base}/docs`);
    assert.equal(res?.status(), 200);
    assert.equal(await page.locator('h1').textContent(), 'Open Platform API');
    const doc = (await s.t.app.inject({ method: 'GET', url: '/openapi.json' })).json<{
      paths: Record<string, object>;
    }>();
    const operations = Object.values(doc.paths).reduce((n, item) => n + Object.keys(item).length, 0);
    assert.equal(await page.locator('main h3').count(), operations, 'one heading per operation');
    assert.equal(await page.locator('#post-openapi-bot-sendMessage').count(), 1, 'sendMessage has its anchor');
    assert.ok((await page.locator('pre code').count()) >= operations, 'examples shown');
    assert.deepEqual(await axeViolations(page), []);
    const scrollWidth = await page.evaluate('document.documentElement.scrollWidth');
    assert.ok(Number(scrollWidth) <= viewport.width, `no horizontal scroll: ${String(scrollWidth)}`);
    assert.deepEqual(errors, []);
    await context.close();
  });
});
