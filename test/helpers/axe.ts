// Accessibility checks in the browser tests: axe-core (the engine behind most a11y linters) run
// inside the page. It is injected through the test's own context, which bypasses the page's CSP for
// this one script only; the page's own headers are tested elsewhere.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface Violation {
  id: string;
  help: string;
  targets: string[];
}

// Runs in the page; the project's TypeScript has no DOM types, so the one global is described here.
declare const axe: {
  run(): Promise<{ violations: { id: string; help: string; nodes: { target: string[] }[] }[] }>;
};

/** The page's axe violations as "rule: help (selectors)" lines; [] when it passes. */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ content: AXE_SOURCE });
  const found: Violation[] = await page.evaluate(async () =>
    (await axe.run()).violations.map((v) => ({
      id: v.id,
      help: v.help,
      targets: v.nodes.map((n) => n.target.join(' ')),
    })),
  );
  return found.map((v) => `${v.id}: ${v.help} (${v.targets.slice(0, 3).join(' | ')})`);
}
