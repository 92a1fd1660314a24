import { mkdir } from 'node:fs/promises';
import axe from 'axe-core';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { repoRoot } from './service-process';
import type { TestSystem } from './system';

/** Debian's chromium (CI installs it with apt); CHROMIUM_PATH names another. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** A host name that is not localhost, which this browser resolves to 127.0.0.1 (any host name works). */
export const CONSOLE_HOST = 'skillrun.test';

/** axe-core's tags for WCAG 2.0, 2.1 and 2.2 at levels A and AA. */
const WCAG_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];

/** Chromium, headless, asking nothing of the network on its own (no updates, no safe browsing). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--no-sandbox',
      '--disable-background-networking',
      '--disable-component-update',
      `--host-resolver-rules=MAP ${CONSOLE_HOST} 127.0.0.1`,
    ],
  });
}

/**
 * A browser tab on the console, which records every request the page makes to a host other than
 * the gateway (the console must work air-gapped) and every script error or CSP violation it logs.
 */
export class ConsoleTab {
  readonly foreignRequests: string[] = [];
  readonly pageErrors: string[] = [];

  private constructor(
    readonly context: BrowserContext,
    readonly page: Page,
    readonly origin: string,
  ) {
    page.on('request', (request) => {
      const url = request.url();
      if (!url.startsWith(origin) && !url.startsWith('data:') && !url.startsWith('blob:')) {
        this.foreignRequests.push(url);
      }
    });
    page.on('pageerror', (error) => this.pageErrors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error' && !/status of 4\d\d/.test(message.text())) {
        this.pageErrors.push(message.text());
      }
    });
  }

  static async open(browser: Browser, origin: string, path = '/console/'): Promise<ConsoleTab> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    const tab = new ConsoleTab(context, page, origin);
    await page.goto(`${origin}${path}`);
    return tab;
  }

  /** Signs in with a key through the sign-in form, then waits for the console to say who it is. */
  async signIn(key: string): Promise<void> {
    await this.page.getByLabel('API key or access token').fill(key);
    await this.page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await this.page.locator('#who').waitFor();
  }

  /**
   * What axe-core finds against WCAG 2.x A and AA on the page as it is now, one line per rule and
   * element: its violations, and what it could not decide (contrast over an image, say), which a
   * person would have to check. Its source is evaluated through the DevTools protocol, which the page's CSP (no inline
   * scripts) does not govern, so the console is measured under its own headers.
   */
  async accessibilityViolations(): Promise<string[]> {
    if (!(await this.page.evaluate('typeof axe !== "undefined"'))) await this.page.evaluate(axe.source);
    const results = (await this.page.evaluate(
      `axe.run(document, { runOnly: { type: 'tag', values: ${JSON.stringify(WCAG_AA)} } })`,
    )) as axe.AxeResults;
    return [...results.violations, ...results.incomplete].flatMap((rule) =>
      rule.nodes.map((node) => `${rule.id}: ${node.target.join(' ')}: ${node.failureSummary}`),
    );
  }

  /** Saves a screenshot under docs/images when CONSOLE_SCREENSHOTS is set (docs/console.md shows them). */
  async screenshot(name: string): Promise<void> {
    if (!process.env.CONSOLE_SCREENSHOTS) return;
    const dir = `${repoRoot}docs/images`;
    await mkdir(dir, { recursive: true });
    await this.page.screenshot({ path: `${dir}/console-${name}.png`, fullPage: false });
  }

  close(): Promise<void> {
    return this.context.close();
  }
}

/**
 * A test system's console in Chromium, for the tests of one describe block: `use` registers the
 * block's hooks. Before all its tests the system and the browser start at once; after each test,
 * every tab the test opened must have asked nothing of another host and logged no error, and is
 * closed; after all, the browser closes and the system stops.
 */
export class ConsoleBrowser {
  private started?: { system: TestSystem; browser: Browser; origin: string };
  /** The tabs the running test opened (`open`), checked and closed after it. */
  private readonly tabs: ConsoleTab[] = [];

  private constructor() {}

  /** `start` starts the system; what else the block needs before its tests goes in a later beforeAll. */
  static use(start: () => Promise<TestSystem>): ConsoleBrowser {
    const used = new ConsoleBrowser();
    beforeAll(async () => {
      const [system, browser] = await Promise.all([start(), launchChromium()]);
      used.started = { system, browser, origin: system.gateway.url.replace('127.0.0.1', CONSOLE_HOST) };
    });
    afterEach(async () => {
      for (const tab of used.tabs.splice(0)) {
        // Nothing but the gateway was asked for anything, and no script failed or was refused by the CSP.
        expect(tab.foreignRequests).toEqual([]);
        expect(tab.pageErrors).toEqual([]);
        await tab.close();
      }
    });
    afterAll(async () => {
      await used.started?.browser.close();
      await used.started?.system.stop();
    });
    return used;
  }

  /** The system under test. */
  get system(): TestSystem {
    return this.running().system;
  }

  /** The console as the browser reaches it: by a host name, over plain HTTP. */
  get origin(): string {
    return this.running().origin;
  }

  /** A new tab on the console at `path` (ConsoleTab.open), checked and closed after the test. */
  async open(path?: string): Promise<ConsoleTab> {
    const { browser, origin } = this.running();
    const tab = await ConsoleTab.open(browser, origin, path);
    this.tabs.push(tab);
    return tab;
  }

  private running(): NonNullable<ConsoleBrowser['started']> {
    if (!this.started) throw new Error('The console browser is used before its beforeAll has run');
    return this.started;
  }
}
