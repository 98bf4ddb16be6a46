/**
 * Templates of the automation kernel: the `{{ }}` text of bot messages, scenario requests, rule actions and
 * campaign bodies, rendered with Liquid (liquidjs: no eval, so it runs in Workers). Concatenation, math,
 * date formatting and conditional values are Liquid's own filters and tags (`append`, `plus`, `date`,
 * `default`, `{% if %}`), which business users know from other tools.
 *
 * A template can neither stall a request nor reach anything: parsing is capped in length, loops in number
 * and nesting (the Workers clock stands still during computation, so a time limit alone would not stop
 * nested loops), rendering in time and memory, there is no file system (`include` and `render` find nothing), and only an object's own
 * properties are readable. A missing variable renders empty unless a `default` filter says otherwise; an
 * unknown filter is an error when the template is checked, so a typo is refused when it is saved.
 */
import { Liquid } from 'liquidjs';

/** The longest template accepted, in characters. */
export const MAX_TEMPLATE_LENGTH = 20_000;
/** Milliseconds one render may take. */
const RENDER_LIMIT_MS = 100;
/** Roughly the characters and array items one render may create (liquidjs' memory accounting). */
const MEMORY_LIMIT = 200_000;
/** Loops a template may hold, and how deep they may nest (the Workers clock stands still while a render
 * computes, so the time limit alone cannot stop nested loops: their shape is bounded instead). */
const MAX_LOOPS = 10;
const MAX_LOOP_DEPTH = 1;

/** What a template failed on: the syntax when checked, a limit or a bad value when rendered. */
export class TemplateError extends Error {
	override readonly name = 'TemplateError';
}

/** One engine per time zone: the `date` filter and `"now"` read the engine's zone. */
const engines = new Map<string, Liquid>();

function engineFor(timeZone: string): Liquid {
	let engine = engines.get(timeZone);
	if (!engine) {
		engine = new Liquid({
			parseLimit: MAX_TEMPLATE_LENGTH,
			renderLimit: RENDER_LIMIT_MS,
			memoryLimit: MEMORY_LIMIT,
			strictFilters: true,
			strictVariables: false,
			ownPropertyOnly: true,
			// No file system: `include`, `render` and `layout` have nothing to load.
			templates: {},
			timezoneOffset: timeZone,
			cache: 200,
		});
		engines.set(timeZone, engine);
	}
	return engine;
}

/**
 * Why a template's loops could run too long: more than one level of `for`/`tablerow`, too many loops, or the
 * `liquid` tag (whose lines hold tags without delimiters); null when they are bounded.
 */
function loopProblem(source: string): string | null {
	let depth = 0;
	let loops = 0;
	for (const match of source.matchAll(/\{%-?\s*(for|tablerow|endfor|endtablerow|liquid)\b/g)) {
		const tag = match[1];
		if (tag === 'liquid') return 'the liquid tag is not allowed';
		if (tag === 'for' || tag === 'tablerow') {
			depth++;
			loops++;
			if (depth > MAX_LOOP_DEPTH) return 'loops may not be nested';
			if (loops > MAX_LOOPS) return `more than ${MAX_LOOPS} loops`;
		} else depth = Math.max(0, depth - 1);
	}
	return null;
}

/** Why a template cannot be used (its syntax, an unknown filter, its length, its loops), or null when it can. */
export function checkTemplate(source: string): string | null {
	if (source.length > MAX_TEMPLATE_LENGTH) return `longer than ${MAX_TEMPLATE_LENGTH} characters`;
	const loops = loopProblem(source);
	if (loops) return loops;
	try {
		engineFor('UTC').parse(source);
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

/** Renders a template; a TemplateError says what failed (a syntax error, a limit). */
export async function renderTemplate(source: string, input: TemplateInput): Promise<string> {
	const problem =
		source.length > MAX_TEMPLATE_LENGTH ? `longer than ${MAX_TEMPLATE_LENGTH} characters` : loopProblem(source);
	if (problem) throw new TemplateError(problem);
	const engine = engineFor(input.timeZone);
	try {
		const rendered: unknown = await engine.parseAndRender(source, templateScope(input));
		return String(rendered);
	} catch (error) {
		throw new TemplateError(firstLine(error), { cause: error });
	}
}

/**
 * Renders a template without waiting: what a pure step machine (the bot interpreter) calls. The same limits
 * apply; a TemplateError says what failed.
 */
export function renderTemplateSync(source: string, input: TemplateInput): string {
	const problem =
		source.length > MAX_TEMPLATE_LENGTH ? `longer than ${MAX_TEMPLATE_LENGTH} characters` : loopProblem(source);
	if (problem) throw new TemplateError(problem);
	try {
		return String(engineFor(input.timeZone).parseAndRenderSync(source, templateScope(input)));
	} catch (error) {
		throw new TemplateError(firstLine(error), { cause: error });
	}
}

function firstLine(error: unknown): string {
	const message = error instanceof Error ? error.message : String(error);
	return message.split('\n')[0] ?? message;
}
