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

/** One page with nothing stored (a new visitor), with the widget's shadow root as where selectors look. */
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
/** How long a WebKit command may take before it fails naming itself (a journey has 60 s in all). */
const COMMAND_TIMEOUT_MS = 20_000;

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
	// One browser for the file, as in the other engines, and a fresh visitor for each page: the widget keeps all it
	// knows in the site's localStorage, which a page's close empties (with the cookies) before the next one opens.
	// A session per page cost a browser start each, and a new session's window could come up while the last one's
	// was still closing: a keyboard action hung once in CI, most likely so (it never did again locally, loaded or not).
	const driver: WebDriver = await new Builder()
		.usingServer(server.url)
		.withCapabilities({ browserName: 'MiniBrowser' })
		.build();
	/** A WebDriver call that fails, naming itself, instead of hanging the test. */
	const within = <T>(what: string, call: Promise<T>): Promise<T> =>
		new Promise<T>((resolve, reject) => {
			const timer = setTimeout(
				() => reject(new Error(`WebKit did not finish ${what} within ${COMMAND_TIMEOUT_MS / 1000} s`)),
				COMMAND_TIMEOUT_MS,
			);
			call.then(resolve, reject).finally(() => clearTimeout(timer));
		});
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
		name: 'webkit',
		async newPage(viewport = DEFAULT_VIEWPORT) {
			await within('sizing the window', driver.manage().window().setRect(viewport));
			return {
				goto: (url) => within(`opening ${url}`, driver.get(url)),
				reload: () => within('reloading', driver.navigate().refresh()),
				run: (body, ...args) => within('a script', driver.executeScript(body, ...args)),
				click: async (selector, index) => within(`clicking ${selector}`, (await element(selector, index)).click()),
				async type(selector, text) {
					await within(`typing into ${selector}`, (await element(selector)).sendKeys(text));
				},
				keyboard: (key) =>
					within(
						`pressing ${typeof key === 'string' ? key : 'keys'}`,
						driver
							.actions()
							.sendKeys(typeof key === 'string' ? SELENIUM_KEYS[key] : key.text)
							.perform(),
					),
				screenshot: async () => Buffer.from(await within('a screenshot', driver.takeScreenshot()), 'base64'),
				async close() {
					const url = await driver.getCurrentUrl();
					if (url.startsWith('http')) await driver.executeScript('localStorage.clear(); sessionStorage.clear()');
					await driver.manage().deleteAllCookies();
					await driver.get('about:blank');
				},
			};
		},
		async quit() {
			await driver.quit().catch(() => {});
			await server.stop();
		},
	};
}
