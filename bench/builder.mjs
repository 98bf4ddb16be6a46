// The bot builder in Chromium against the running Worker: how fast a large flow opens on the canvas and how
// fast the canvas follows an edit. A bot of the most steps a definition may hold (200, a realistic mix of
// messages, questions, button choices and decisions, laid out by dagre on open) is opened cold, from a fresh
// context holding only the admin's session; then one step's text is typed in its form and the node's summary
// followed. The baseline is the same static page of the Worker the inbox's loads are measured against.
import { performance } from 'node:perf_hooks';
import { gzipSync } from 'node:zlib';
import { summary } from './console.mjs';
import { ratio, round } from './report-format.mjs';

/** The most steps a definition may hold (src/engines/step-graph.ts). */
const MAX_STEPS = 200;
const WARMUP_LOADS = 1;
const TIMEOUT_MS = 30_000;
const VIEWPORT = { width: 1440, height: 900 };
/** Characters typed in a step's form, each timed to the frame where its node shows it. */
const KEYSTROKES = 20;

/**
 * A definition of nearly `MAX_STEPS` steps (197): a questionnaire of groups of four (a message, a text question, a button
 * question whose first choice skips ahead, a decision on the answer), each group leading to the next, ending
 * in a handoff. Forward links only, as a real flow of that size.
 */
export function largeBot() {
	const steps = [];
	const groups = Math.floor((MAX_STEPS - 1) / 4);
	for (let g = 0; g < groups; g++) {
		const next = g + 1 < groups ? `say-${g + 1}` : 'handoff';
		steps.push(
			{
				id: `say-${g}`,
				type: 'send_message',
				text: `Part ${g + 1}: a few questions about your team.`,
				next: `ask-${g}`,
			},
			{
				id: `ask-${g}`,
				type: 'data_entry',
				prompt: `Question ${g + 1}?`,
				input: 'text',
				variable: `q${g}`,
				next: `pick-${g}`,
			},
			{
				id: `pick-${g}`,
				type: 'data_entry',
				prompt: 'Which fits best?',
				input: 'buttons',
				variable: `p${g}`,
				choices: [{ label: 'Skip ahead', next }, { label: 'Small' }, { label: 'Large' }],
				next: `check-${g}`,
			},
			{
				id: `check-${g}`,
				type: 'decision',
				branches: [{ condition: { fact: `vars.p${g}`, operator: 'eq', value: 'Large' }, next: 'handoff' }],
				default: next,
			},
		);
	}
	steps.push({ id: 'handoff', type: 'transfer', message: 'Thanks! A person takes it from here.' });
	return { start: 'say-0', steps };
}

async function createBot(baseUrl, token, definition) {
	const response = await fetch(`${baseUrl}/v3/bots`, {
		method: 'POST',
		headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
		body: JSON.stringify({ name: 'Bench: a large flow', trigger: { kind: 'manual' }, enabled: false, definition }),
	});
	if (response.status !== 201) throw new Error(`POST /v3/bots answered ${response.status}: ${await response.text()}`);
	return (await response.json()).id;
}

/** In the page: navigation start to the first frame in which every step's node is drawn with its size. */
function drawnAt({ count, timeoutMs }) {
	return new Promise((resolve, reject) => {
		const deadline = performance.now() + timeoutMs;
		const check = () => {
			const nodes = document.querySelectorAll('.react-flow__node-step');
			const drawn = [...nodes].filter(
				(n) => n.getBoundingClientRect().width > 0 && getComputedStyle(n).visibility !== 'hidden',
			);
			if (drawn.length >= count) return resolve(performance.now());
			if (performance.now() > deadline) return reject(new Error(`${drawn.length} of ${count} nodes drawn`));
			requestAnimationFrame(check);
		};
		check();
	});
}

/** In the page: types into the focused field, timing each key to the frame in which the node's summary has it. */
async function typeAndFollow({ stepId, keys, timeoutMs }) {
	const field = document.activeElement;
	const summary = document.querySelector(`.react-flow__node[data-id="${stepId}"] .step-summary`);
	const times = [];
	for (let i = 0; i < keys; i++) {
		const text = `${field.value}x`;
		const started = performance.now();
		const setter = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(field), 'value').set;
		setter.call(field, text);
		field.dispatchEvent(new Event('input', { bubbles: true }));
		await new Promise((resolve, reject) => {
			const deadline = started + timeoutMs;
			const check = () => {
				if (summary.textContent === text) return requestAnimationFrame(() => resolve());
				if (performance.now() > deadline) return reject(new Error('the node never showed the edit'));
				requestAnimationFrame(check);
			};
			check();
		});
		times.push(performance.now() - started);
	}
	return times;
}

/** One cold open of the builder: drawn time, the scripts fetched (the builder's chunk apart), the edits. */
async function coldOpen(browser, state, baseUrl, botId, count) {
	const context = await browser.newContext({ storageState: state, viewport: VIEWPORT });
	const scripts = [];
	context.on('response', (response) => {
		if (response.url().startsWith(baseUrl) && response.request().resourceType() === 'script') scripts.push(response);
	});
	try {
		const page = await context.newPage();
		await page.goto(`${baseUrl}/console/bots/${botId}`);
		const drawnMs = await page.evaluate(drawnAt, { count, timeoutMs: TIMEOUT_MS });
		// Selected from the keyboard: at the zoom that fits 197 steps, a node may lie outside the view.
		await page.locator('.react-flow__node[data-id="say-0"]').focus();
		await page.keyboard.press('Enter');
		await page.locator('.builder-panel').getByLabel('Text', { exact: true }).focus();
		const edits = await page.evaluate(typeAndFollow, { stepId: 'say-0', keys: KEYSTROKES, timeoutMs: TIMEOUT_MS });
		const bodies = await Promise.all(
			scripts.map(async (r) => ({
				path: new URL(r.url()).pathname,
				body: await r.body().catch(() => Buffer.alloc(0)),
			})),
		);
		const chunk = bodies.filter((b) => /\/builder-[^/]+\.js$/.test(b.path));
		const gzip = (list) => list.reduce((t, b) => t + gzipSync(b.body, { level: 9 }).length, 0);
		return {
			drawnMs,
			edits,
			scriptGzip: gzip(bodies),
			builderGzip: gzip(chunk),
			builderBytes: chunk.reduce((t, b) => t + b.body.length, 0),
		};
	} finally {
		await context.close();
	}
}

/**
 * Measures the builder with `browser` (already launched), the admin's session `state`, the workspace's `token`
 * (to create the bot) and `baselineP50Ms`, the static page's p50 of the same run.
 */
export async function measureBuilder({ browser, state, baseUrl, token, loads, baselineP50Ms }) {
	const started = performance.now();
	const definition = largeBot();
	const botId = await createBot(baseUrl, token, definition);
	const runs = [];
	for (let i = 0; i < WARMUP_LOADS + loads; i++) {
		const run = await coldOpen(browser, state, baseUrl, botId, definition.steps.length);
		if (i >= WARMUP_LOADS) runs.push(run);
	}
	const drawn = summary(runs.map((r) => r.drawnMs));
	const edit = summary(runs.flatMap((r) => r.edits));
	return {
		steps: definition.steps.length,
		loads: runs.length,
		warmupLoads: WARMUP_LOADS,
		viewport: VIEWPORT,
		keystrokes: KEYSTROKES,
		chunk: { bytes: runs[0].builderBytes, gzip: runs[0].builderGzip, scriptGzip: runs[0].scriptGzip },
		drawn: { ...drawn, p50RatioToBaseline: ratio(drawn.p50Ms, baselineP50Ms) },
		edit,
		totalSeconds: round((performance.now() - started) / 1000, 1),
	};
}
