// The three engines the widget's journeys run in (test/browser/journeys.ts), behind one small interface: a page
// of a fresh browser profile that runs a script, clicks and types into the widget's shadow root, and presses
// keys. Chromium through playwright-core (as the other browser tests), Firefox through puppeteer-core over
// WebDriver BiDi, WebKit (WebKitGTK, Safari's engine) through selenium-webdriver and WebKitWebDriver.
// Scripts are strings, not functions: each driver serialises differently, and a string runs the same in all.
import puppeteer, { type KeyInput, type Browser as PuppeteerBrowser } from 'puppeteer-core';
import { Builder, By, Key, type WebDriver, type WebElement } from 'selenium-webdriver';
import { launchChromium } from '../../scripts/chromium.mjs';
import { findFirefox, findWebKit, startWebKitDriver } from '../../scripts/engines.mjs';

export type EngineName = 'chromium' | 'webkit' | 'firefox';

export const ENGINE_LABELS: Record<EngineName, string> = {
	chromium: 'Chromium',
	webkit: 'WebKit',
	firefox: 'Firefox',
};

/** A key the journeys press. */
export type JourneyKey = 'Tab' | 'Enter' | 'Escape';

/** One page in a fresh profile (its own storage), with the widget's shadow root as where selectors look. */
export interface EnginePage {
	goto(url: string): Promise<void>;
	reload(): Promise<void>;
	/**
	 * Runs `body` in the page as a function body: `arguments[0]`... are `args`, its return value (a promise is
	 * awaited) comes back as JSON.
	 */
	run<T>(body: string, ...args: unknown[]): Promise<T>;
	/** A real click on the `index`th element matching `selector` in the widget's shadow root. */
	click(selector: string, index?: number): Promise<void>;
	/** Types `text` into the element matching `selector` in the widget's shadow root, key by key. */
	type(selector: string, text: string): Promise<void>;
	/** Presses `key`, or types text, into whatever has the focus. */
	keyboard(key: JourneyKey | { text: string }): Promise<void>;
	/** A PNG of the viewport, for the README's pictures. */
	screenshot(): Promise<Uint8Array>;
	close(): Promise<void>;
}

export interface Engine {
	name: EngineName;
	/** A page of a new profile, `viewport` CSS pixels wide and high (a window about that size in WebKit). */
	newPage(viewport?: { width: number; height: number }): Promise<EnginePage>;
	quit(): Promise<void>;
}

/** Why an engine cannot run here, or undefined when it can. */
export function missing(name: EngineName): string | undefined {
	if (name === 'webkit') return findWebKit().reason;
	if (name === 'firefox') return findFirefox().reason;
	return undefined;
}

export function launchEngine(name: EngineName): Promise<Engine> {
	if (name === 'webkit') return launchWebKit();
	if (name === 'firefox') return launchFirefox();
	return launchChromiumEngine();
}

const DEFAULT_VIEWPORT = { width: 1280, height: 800 };
/** How long a click waits for its element to be there (the journeys wait for state, not for elements). */
const ELEMENT_TIMEOUT_MS = 10_000;

/** `(function(){body}).apply(null, args)` as one expression, for the drivers that evaluate expressions. */
function expression(body: string, args: unknown[]): string {
	return `(function(){${body}\n}).apply(null, ${JSON.stringify(args)})`;
}

async function launchChromiumEngine(): Promise<Engine> {
	const browser = await launchChromium();
	return {
		name: 'chromium',
		async newPage(viewport = DEFAULT_VIEWPORT) {
			const context = await browser.newContext({ viewport });
			const page = await context.newPage();
			const inWidget = (selector: string) => page.locator(`parley-widget ${selector}`);
			return {
				goto: async (url) => void (await page.goto(url)),
				reload: async () => void (await page.reload()),
				run: (body, ...args) => page.evaluate(expression(body, args)),
				click: (selector, index = 0) => inWidget(selector).nth(index).click({ timeout: ELEMENT_TIMEOUT_MS }),
				async type(selector, text) {
					await inWidget(selector).first().focus({ timeout: ELEMENT_TIMEOUT_MS });
					await page.keyboard.type(text);
				},
				keyboard: (key) => (typeof key === 'string' ? page.keyboard.press(key) : page.keyboard.type(key.text)),
				screenshot: () => page.screenshot(),
				close: () => context.close(),
			};
		},
		quit: () => browser.close(),
	};
}

async function launchFirefox(): Promise<Engine> {
	const { binary, reason } = findFirefox();
	if (!binary) throw new Error(reason);
	const browser: PuppeteerBrowser = await puppeteer.launch({
		browser: 'firefox',
		executablePath: binary,
		headless: true,
		protocol: 'webDriverBiDi',
	});
	return {
		name: 'firefox',
		async newPage(viewport = DEFAULT_VIEWPORT) {
			const context = await browser.createBrowserContext();
			const page = await context.newPage();
			await page.setViewport(viewport);
			const element = async (selector: string, index = 0) => {
				const deadline = Date.now() + ELEMENT_TIMEOUT_MS;
				for (;;) {
					const found = (await page.$$(`parley-widget >>> ${selector}`))[index];
					if (found) return found;
					if (Date.now() > deadline) throw new Error(`no element ${index} matching ${selector} in the widget`);
					await new Promise((resolve) => setTimeout(resolve, 100));
				}
			};
			return {
				goto: async (url) => void (await page.goto(url)),
				reload: async () => void (await page.reload()),
				run: (body, ...args) => page.evaluate(expression(body, args)) as Promise<never>,
				click: async (selector, index) => (await element(selector, index)).click(),
				async type(selector, text) {
					await (await element(selector)).focus();
					await page.keyboard.type(text);
				},
				keyboard: (key) =>
					typeof key === 'string' ? page.keyboard.press(key satisfies KeyInput) : page.keyboard.type(key.text),
				screenshot: () => page.screenshot(),
				close: () => context.close(),
			};
		},
		quit: () => browser.close(),
	};
}

const SELENIUM_KEYS: Record<JourneyKey, string> = { Tab: Key.TAB, Enter: Key.ENTER, Escape: Key.ESCAPE };

async function launchWebKit(): Promise<Engine> {
	const server = await startWebKitDriver();
	return {
		name: 'webkit',
		// A session per page: each starts a browser with a profile of its own (nothing stored is shared).
		async newPage(viewport = DEFAULT_VIEWPORT) {
			const driver: WebDriver = await new Builder()
				.usingServer(server.url)
				.withCapabilities({ browserName: 'MiniBrowser' })
				.build();
			await driver.manage().window().setRect({ width: viewport.width, height: viewport.height });
			const element = async (selector: string, index = 0): Promise<WebElement> => {
				const deadline = Date.now() + ELEMENT_TIMEOUT_MS;
				for (;;) {
					const hosts = await driver.findElements(By.css('parley-widget'));
					const found = hosts[0] && (await (await hosts[0].getShadowRoot()).findElements(By.css(selector)))[index];
					if (found) return found;
					if (Date.now() > deadline) throw new Error(`no element ${index} matching ${selector} in the widget`);
					await new Promise((resolve) => setTimeout(resolve, 100));
				}
			};
			return {
				goto: (url) => driver.get(url),
				reload: () => driver.navigate().refresh(),
				run: (body, ...args) => driver.executeScript(body, ...args),
				click: async (selector, index) => (await element(selector, index)).click(),
				async type(selector, text) {
					await (await element(selector)).sendKeys(text);
				},
				keyboard: (key) =>
					driver
						.actions()
						.sendKeys(typeof key === 'string' ? SELENIUM_KEYS[key] : key.text)
						.perform(),
				screenshot: async () => Buffer.from(await driver.takeScreenshot(), 'base64'),
				close: () => driver.quit(),
			};
		},
		quit: () => server.stop(),
	};
}
