/**
 * Templates of the automation kernel: the `{{ }}` text of bot messages, scenario requests, rule actions and
 * campaign bodies, rendered with Liquid (liquidjs: no eval, so it runs in Workers). Concatenation, math,
 * date formatting and conditional values are Liquid's own filters and tags (`append`, `plus`, `date`,
 * `default`, `{% if %}`), which business users know from other tools.
 *
 * A template can neither stall a request, grow without bound nor reach anything. Parsing is capped in length.
 * Loops are capped in number and nesting, decided from liquidjs's own parse tree (an `endfor` in a comment or
 * raw text is text, not a loop's end). The Workers clock stands still during computation, so no time limit
 * could stop a render; counts do instead. Each render is counted while it runs: the text it writes (captures
 * included) up to a bound the caller sets, a message's own limit where the text becomes a message, and the
 * tags and text pieces it renders, so a loop that writes nothing still stops. liquidjs' memory limit caps
 * what filters and ranges build. There is no file system (`include`, `render`, `layout` and `block` are
 * refused), and only an object's own properties are readable. A missing variable renders empty unless a
 * `default` filter says otherwise; an unknown filter is an error when the template is checked, so a typo is
 * refused when it is saved.
 */
import { Context, type Emitter, Liquid, Tag, type Template, toValue } from 'liquidjs';

/** The longest template accepted, in characters. */
export const MAX_TEMPLATE_LENGTH = 20_000;
/** The longest text one render may write where the caller names no bound of its own (an HTTP request's body, a
 * preview): five times the longest template. */
export const MAX_RENDERED_LENGTH = 100_000;
/** Tags, outputs and text pieces one render may run, each loop iteration counting its body again: what stops a
 * loop that writes nothing over a huge range or array, at a few tens of milliseconds of work. It replaces a
 * time limit, which on Workers never fires (the clock stands still during computation) and elsewhere would
 * stop renders that Workers lets run. */
const MAX_RENDER_STEPS = 20_000;
/** Roughly the characters and array items one render's filters and ranges may create (liquidjs' memory accounting). */
const MEMORY_LIMIT = 200_000;
/** Loops a template may hold, and how deep they may nest. */
const MAX_LOOPS = 10;
const MAX_LOOP_DEPTH = 1;

/** What a template failed on: the syntax when checked, a limit or a bad value when rendered. */
export class TemplateError extends Error {
	override readonly name = 'TemplateError';
}

/** What one render has used of its bounds; the first bound passed is kept as the reason the render stopped. */
class RenderBudget {
	private written = 0;
	private steps = 0;
	problem: string | null = null;

	constructor(private readonly maxLength: number) {}

	write(characters: number) {
		this.written += characters;
		if (this.written > this.maxLength) this.stop(`the output is longer than ${this.maxLength} characters`);
	}

	step(count: number) {
		this.steps += count;
		if (this.steps > MAX_RENDER_STEPS) this.stop(`the loops run more than ${MAX_RENDER_STEPS} steps`);
	}

	private stop(problem: string): never {
		this.problem ??= problem;
		throw new TemplateError(problem);
	}
}

/** A render's context with its budget, so the renderer hook below can charge the render it belongs to. */
class BudgetedContext extends Context {
	constructor(
		scope: object,
		engine: Liquid,
		sync: boolean,
		readonly budget: RenderBudget,
	) {
		super(scope, engine.options, { sync }, { liquid: engine });
	}
}

/** Writes a render's text as liquidjs' own emitter does, charging each piece to the budget before keeping it. */
class CountingEmitter implements Emitter {
	buffer = '';

	constructor(private readonly budget: RenderBudget) {}

	write(html: unknown) {
		const text = textOf(html);
		this.budget.write(text.length);
		this.buffer += text;
	}
}

/** A value as liquidjs writes it: arrays joined, nothing for null. */
function textOf(value: unknown): string {
	const v: unknown = toValue(value);
	if (typeof v === 'string') return v;
	if (v === null || v === undefined) return '';
	if (Array.isArray(v)) return v.map(textOf).join('');
	return String(v);
}

/** One engine per time zone: the `date` filter and `"now"` read the engine's zone. */
const engines = new Map<string, Liquid>();

function engineFor(timeZone: string): Liquid {
	let engine = engines.get(timeZone);
	if (!engine) {
		engine = new Liquid({
			parseLimit: MAX_TEMPLATE_LENGTH,
			memoryLimit: MEMORY_LIMIT,
			strictFilters: true,
			strictVariables: false,
			ownPropertyOnly: true,
			// No file system: `include`, `render` and `layout` have nothing to load.
			templates: {},
			timezoneOffset: timeZone,
			cache: 200,
		});
		countRenders(engine);
		engines.set(timeZone, engine);
	}
	return engine;
}

/**
 * Hooks the engine's renderer, through which every block renders (the template, each loop iteration's body, a
 * branch, a capture): each call charges its templates as steps, and a call without an emitter (the top, a
 * capture) gets one that counts what it writes. So the bounds hold while the render runs, not after.
 */
function countRenders(engine: Liquid) {
	const renderer = engine.renderer;
	const renderTemplates = renderer.renderTemplates.bind(renderer);
	renderer.renderTemplates = function* countedRender(templates: Template[], ctx: Context, emitter?: Emitter) {
		if (!(ctx instanceof BudgetedContext)) throw new TemplateError('a template rendered without its bounds');
		ctx.budget.step(templates.length + 1);
		return yield* renderTemplates(templates, ctx, emitter ?? new CountingEmitter(ctx.budget));
	};
}

/** The tags a template may use: those whose templates the walk below sees. `include`, `render`, `layout` and
 * `block` load or stitch in other templates (there are none, and a quoted file name is itself a template). */
const ALLOWED_TAGS = new Set([
	...['assign', 'capture', 'increment', 'decrement', 'cycle', 'echo', 'break', 'continue'],
	...['if', 'unless', 'case', 'for', 'tablerow', 'liquid', 'comment', 'raw', '#'],
]);
const LOOP_TAGS = new Set(['for', 'tablerow']);

/**
 * Why a parsed template's loops could run too long (a loop inside another, too many loops) or a tag it may
 * not use; null when it is bounded. Walks liquidjs's parse tree, each tag's `children()` being the templates
 * it renders (a for's body and else, an if's branches, a liquid tag's lines); a comment and raw text have none.
 */
function structureProblem(templates: Template[]): string | null {
	let loops = 0;
	const walk = (nodes: Template[], depth: number): string | null => {
		for (const node of nodes) {
			if (!(node instanceof Tag)) continue;
			if (!ALLOWED_TAGS.has(node.name)) return `the ${node.name} tag is not allowed`;
			const loop = LOOP_TAGS.has(node.name);
			if (loop) {
				loops++;
				if (depth >= MAX_LOOP_DEPTH) return 'loops may not be nested';
				if (loops > MAX_LOOPS) return `more than ${MAX_LOOPS} loops`;
			}
			const children = (node as Template).children?.(false, true);
			const problem = children ? walk(childTemplates(children), depth + (loop ? 1 : 0)) : null;
			if (problem) return problem;
		}
		return null;
	};
	return walk(templates, 0);
}

/** The templates a tag's `children()` generator returns (the allowed tags return them without yielding). */
function childTemplates(children: Generator<unknown, Template[]>): Template[] {
	let step = children.next();
	while (!step.done) step = children.next();
	return step.value;
}

/** The template parsed and its structure checked; a TemplateError says why it cannot be used. */
function parsed(engine: Liquid, source: string): Template[] {
	if (source.length > MAX_TEMPLATE_LENGTH) throw new TemplateError(`longer than ${MAX_TEMPLATE_LENGTH} characters`);
	let templates: Template[];
	try {
		templates = engine.parse(source);
	} catch (error) {
		throw new TemplateError(firstLine(error), { cause: error });
	}
	const problem = structureProblem(templates);
	if (problem) throw new TemplateError(problem);
	return templates;
}

/** Why a template cannot be used (its syntax, an unknown filter, its length, its loops), or null when it can. */
export function checkTemplate(source: string): string | null {
	try {
		parsed(engineFor('UTC'), source);
		return null;
	} catch (error) {
		return firstLine(error);
	}
}

/** What a template can read: the reserved names below, and the run's own variables by name. */
export interface TemplateInput {
	contact?: {
		id: string;
		name: string | null;
		email: string | null;
		phone: string | null;
		customFields?: Record<string, unknown>;
	} | null;
	conversation?: { id: string; channel?: string } | null;
	/** The operator assigned (or acting), by name. */
	agent?: { id: string; name: string } | null;
	/** Collected input, API response data and calculated values, by variable name. */
	variables?: Record<string, unknown>;
	/** The workspace's IANA time zone (business hours'), for `current_date`, `current_time` and `date`. */
	timeZone: string;
	now: number;
}

/** The local date (YYYY-MM-DD) and time (HH:mm) of an instant in a time zone. */
export function localDateTime(now: number, timeZone: string): { date: string; time: string } {
	const parts = Object.fromEntries(
		new Intl.DateTimeFormat('en-CA', {
			timeZone,
			year: 'numeric',
			month: '2-digit',
			day: '2-digit',
			hour: '2-digit',
			minute: '2-digit',
			hourCycle: 'h23',
		})
			.formatToParts(new Date(now))
			.map((part) => [part.type, part.value]),
	);
	return { date: `${parts.year}-${parts.month}-${parts.day}`, time: `${parts.hour}:${parts.minute}` };
}

/**
 * The scope a template renders in. The run's variables come first, so a bot may name one anything but the
 * reserved names, which always mean the same: `contact`, `conversation`, `agent`, `current_date`,
 * `current_time`, `now`, `vars` (every variable, also those whose name is reserved).
 */
export function templateScope(input: TemplateInput): Record<string, unknown> {
	const { date, time } = localDateTime(input.now, input.timeZone);
	const variables = input.variables ?? {};
	return {
		...variables,
		vars: variables,
		// Given (a bot's conversation): these names are the conversation's. Left out (a scenario, which has none
		// of its own): a variable of that name (`contact` a Find step kept) is what they read.
		...(input.contact === undefined
			? {}
			: {
					contact: input.contact
						? {
								id: input.contact.id,
								name: input.contact.name ?? '',
								email: input.contact.email ?? '',
								phone: input.contact.phone ?? '',
								custom_fields: input.contact.customFields ?? {},
							}
						: {},
				}),
		...(input.conversation === undefined ? {} : { conversation: input.conversation ?? {} }),
		...(input.agent === undefined ? {} : { agent: input.agent ?? {} }),
		current_date: date,
		current_time: time,
		// The run's clock, for `date`: `{{ now | date: "%d/%m %H:%M" }}` (a simulation renders its own now).
		now: new Date(input.now),
	};
}

/**
 * Renders a template, writing at most `maxLength` characters (a message's own limit where the text becomes
 * one); a TemplateError says what failed (a syntax error, a limit).
 */
export async function renderTemplate(
	source: string,
	input: TemplateInput,
	maxLength = MAX_RENDERED_LENGTH,
): Promise<string> {
	const engine = engineFor(input.timeZone);
	const templates = parsed(engine, source);
	const budget = new RenderBudget(maxLength);
	try {
		return String(await engine.render(templates, new BudgetedContext(templateScope(input), engine, false, budget)));
	} catch (error) {
		throw new TemplateError(budget.problem ?? firstLine(error), { cause: error });
	}
}

/**
 * Renders a template without waiting: what a pure step machine (the bot interpreter) calls. The same limits
 * apply; a TemplateError says what failed.
 */
export function renderTemplateSync(source: string, input: TemplateInput, maxLength = MAX_RENDERED_LENGTH): string {
	const engine = engineFor(input.timeZone);
	const templates = parsed(engine, source);
	const budget = new RenderBudget(maxLength);
	try {
		return String(engine.renderSync(templates, new BudgetedContext(templateScope(input), engine, true, budget)));
	} catch (error) {
		throw new TemplateError(budget.problem ?? firstLine(error), { cause: error });
	}
}

function firstLine(error: unknown): string {
	const message = error instanceof Error ? error.message : String(error);
	return message.split('\n')[0] ?? message;
}
