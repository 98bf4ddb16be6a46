// The console part of the bench report (bench/console.mjs measures it), in the full report and, for
// `--only console`, as a file of its own.
import { markdownTable, sectionOnlyMarkdown, show, textTable } from './report-format.mjs';

const kib = (bytes) => `${(bytes / 1024).toFixed(1)} KiB`;
const ms = (value) => show(value, ' ms');
const p50p95 = (s) => `${ms(s.p50Ms)} / ${ms(s.p95Ms)}`;

const HEADER = ['figure', 'value', 'ratio', 'ratio to'];

function consoleRows(c) {
	const { script, css, html } = c.firstLoad;
	const i = c.interactive;
	const s = c.scroll;
	return [
		[
			'first load: script, gzip (raw)',
			`${kib(script.gzip)} (${kib(script.bytes)}) in ${script.files.length} file(s)`,
			show(script.ratioToBudget),
			'250 KiB budget',
		],
		['first load: CSS / HTML, gzip', `${kib(css.gzip)} / ${kib(html.gzip)}`, '', ''],
		['inbox interactive p50 / p95', p50p95(i), show(i.p95RatioToBudget), '1.5 s budget (p95)'],
		['inbox interactive p50', ms(i.p50Ms), show(i.p50RatioToBaseline), 'static page load p50'],
		['inbox interactive p50', ms(i.p50Ms), show(i.p50RatioToHealth), 'health p50'],
		['first row on screen p50 / p95', p50p95(c.firstRow), '', ''],
		['static page load p50 / p95 (baseline)', p50p95(c.baseline), '1', ''],
		['first row clicked to selected p50 / p95', p50p95(c.click), '', ''],
		[
			`scroll to row ${s.rows.toLocaleString('en')}, one screen a step: step p50 / p95 / max`,
			`${p50p95(s.step)} / ${ms(s.step.maxMs)} (${s.screens} steps)`,
			'',
			'',
		],
		[
			'scroll: waits for the next 100 at the end of the loaded rows, p50 / p95',
			`${p50p95(s.fetchWaits)} (${s.fetchWaits.count} waits)`,
			'',
			'',
		],
		[
			'scroll: frame interval p50 / p95 / max; frames over 50 ms',
			`${p50p95(s.frames)} / ${ms(s.frames.maxMs)}; ${s.frames.over50Ms} of ${s.frames.count}`,
			'',
			'',
		],
		['scroll: conversation rows in the DOM, most / at the end', `${s.domRowsMax} / ${s.domRowsEnd}`, '', ''],
		...builderRows(c.builder),
	];
}

function builderRows(b) {
	if (!b) return [['bot builder', 'not measured (see the warnings)', '', '']];
	return [
		[
			'bot builder: its chunk, gzip (raw); all script of the load, gzip',
			`${kib(b.chunk.gzip)} (${kib(b.chunk.bytes)}); ${kib(b.chunk.scriptGzip)}`,
			'',
			'',
		],
		[
			`bot builder: a ${b.steps}-step bot opened, every node drawn, p50 / p95`,
			p50p95(b.drawn),
			show(b.drawn.p50RatioToBaseline),
			'static page load p50',
		],
		[`bot builder: a key typed in a step's form to its node showing it, p50 / p95`, p50p95(b.edit), '', ''],
	];
}

export function consoleText(results) {
	return results.console ? textTable(['console figure', ...HEADER.slice(1)], consoleRows(results.console)) : null;
}

export function consoleSection(results) {
	const c = results.console;
	const lines = ['## Operator console', ''];
	if (!c) return [...lines, 'Console: not measured (see the warnings).', ''];
	return [
		...lines,
		`Headless Chromium (${c.viewport.width}x${c.viewport.height}), a workspace of ${c.conversations.toLocaleString('en')} ` +
			'open conversations whose admin signs in once through the console’s form; then ' +
			`${c.loads} cold loads of /console (each a fresh context holding only the session cookie: an empty cache) ` +
			`after ${c.warmupLoads} unrecorded ones, each followed by a load of the Worker’s static index page (GET /) in a ` +
			`fresh context, the baseline. The section took ${show(c.totalSeconds)} s.`,
		'',
		markdownTable(HEADER, consoleRows(c)),
		'',
		'- **First load**: the bodies of the document, scripts and stylesheets the load fetched from the Worker, ' +
			'gzip level 9 (`wrangler dev` sends them uncompressed; Cloudflare compresses them in production).',
		'- **Interactive**: navigation start to the first animation frame with a conversation row (`[role=option]` in ' +
			'the Conversations listbox) visible, extended to the end of any main-thread long task (over 50 ms) that ' +
			`starts before ${c.quietWindowMs} ms of quiet follow (Lighthouse's rule, with a window fit for a page whose ` +
			'data is already in). The list, its first page of 100 and the live feed are all loaded by then.',
		'- **Clicked to selected**: a click on the first row until the list shows it selected (the route moved, the ' +
			'conversation pane mounts): the inbox answers input.',
		'- **Bot builder**: a bot of 197 steps (messages, questions, button choices that skip ahead, decisions; nearly ' +
			'the 200 a definition may hold) created through the API, then opened cold (a fresh context with only the ' +
			'session) at /console/bots/{id}: navigation start to the first frame in which every step node is drawn with ' +
			'its size (the definition loaded, laid out by dagre, measured by React Flow). Then ' +
			`${c.builder?.keystrokes ?? 20} characters typed one by one into the first step's text, each timed to the ` +
			`frame in which its node's summary shows it; ${c.builder?.loads ?? 0} opens after ${c.builder?.warmupLoads ?? 0} unrecorded.`,
		'- **Scroll**: the list scrolled one screen (its height) per step to the last conversation; a step runs from ' +
			'the scroll to the frame after the one that drew rows at the top of the view. At the end of the loaded ' +
			'rows the list fetches the next 100; that wait is counted apart. Frame intervals are those of ' +
			'`requestAnimationFrame` throughout.',
		'',
	];
}

/** The file `npm run bench -- --only console` writes (bench/results/console.md). */
export function consoleMarkdown(results) {
	return sectionOnlyMarkdown(results, {
		title: 'console',
		only: 'console',
		health: `p50 ${ms(results.health.p50Ms)}`,
		section: consoleSection(results),
	});
}
