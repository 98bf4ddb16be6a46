import { z } from '@hono/zod-openapi';
import { and, eq } from 'drizzle-orm';
import type { Database } from '../../db/client';
import { widgetSettings } from '../../db/schema';
import { Conflict, type FieldProblem, Invalid } from '../../lib/errors';
import { assertVersion, changedSince, type ExpectedVersion, expectsVersion } from '../../lib/expected-version';
import { schemaRules, when } from '../../lib/schema-rules';
import { httpsUrl } from '../../lib/url-schemas';
import { isKnownTimeZone, minutesOf, WEEKDAYS } from '../../model/business-hours';
import { customFieldKey } from '../../model/custom-fields';
import { checkCustomValues, definitionsOf } from '../crm/custom-values';

/** What the widget shows about availability: the engine the widget itself runs in the browser. */
export { widgetAvailability } from '../../protocol/widget-availability';

const hexColor = z
	.string()
	.regex(/^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/, 'must be a hex color such as #1f6feb')
	.openapi({ example: '#1f6feb' });

const clock = z
	.string()
	.regex(/^(?:[01]\d|2[0-3]):[0-5]\d$|^24:00$/, 'must be a time written HH:MM (00:00 to 24:00)')
	.openapi({ description: 'A time of day, HH:MM (00:00 to 24:00).' });

const interval = z
	.strictObject({ start: clock, end: clock })
	.refine((i) => minutesOf(i.start) < minutesOf(i.end), { message: 'end must be after start' })
	.openapi({ description: 'An open interval: `end` after `start`.' });

const weekly = z.strictObject(
	Object.fromEntries(
		WEEKDAYS.map((day) => [
			day,
			z.array(interval).max(8).openapi({ description: 'Open intervals that day; [] when closed.' }),
		]),
	) as Record<(typeof WEEKDAYS)[number], z.ZodArray<typeof interval>>,
);

export const businessHoursSchema = z
	.strictObject({
		/** The operator-interface setting "consider business hours". */
		enabled: z
			.boolean()
			.openapi({ description: 'Whether availability follows these hours ("consider business hours").' }),
		timeZone: z
			.string()
			.refine(isKnownTimeZone, 'must be an IANA time zone such as Europe/Paris')
			.openapi({ description: 'The IANA time zone the hours are in.' }),
		weekly: weekly.openapi({ description: 'Open intervals per weekday.' }),
		holidays: z
			.array(z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date written YYYY-MM-DD'))
			.max(366)
			.openapi({ description: 'Closed dates (YYYY-MM-DD).' }),
	})
	.openapi('BusinessHours');

export const periodMessagesSchema = z
	.strictObject({
		inHours: z.string().max(500).openapi({ description: 'During business hours.' }),
		outOfHours: z.string().max(500).openapi({ description: 'Outside business hours on a working day.' }),
		weekend: z.string().max(500).openapi({ description: 'On a weekend day.' }),
		holiday: z.string().max(500).openapi({ description: 'On a holiday.' }),
	})
	.openapi('PeriodMessages');

/** Phone number as digits with the country code, optionally led by +. */
export const phoneNumber = z
	.string()
	.regex(/^\+?[1-9]\d{7,14}$/, 'must be digits with the country code, e.g. +5511999998888');

const messagingBubbleFields = z.strictObject({
	enabled: z.boolean().openapi({ description: 'Whether the launcher offers the messaging app.' }),
	phoneNumber: phoneNumber.nullable().openapi({ description: 'The WhatsApp number, with the country code.' }),
	prefilledMessage: z
		.string()
		.max(500)
		.openapi({ description: 'The text the app opens with (the reference is appended).' }),
});

export const messagingBubbleSchema = messagingBubbleFields
	.refine((b) => !b.enabled || b.phoneNumber !== null, {
		message: 'phoneNumber is required when the bubble is enabled',
		path: ['phoneNumber'],
	})
	// The refinement above is invisible to the generator: the document states it for clients that validate.
	.openapi(
		'MessagingBubble',
		schemaRules(
			when(
				{ required: ['enabled'], properties: { enabled: { const: true } } },
				{ required: ['phoneNumber'], properties: { phoneNumber: { type: 'string' } } },
			),
		),
	);

export const customFieldSchema = z
	.strictObject({
		name: customFieldKey.openapi({ description: 'The key the answer is stored under on the contact.' }),
		label: z.string().min(1).max(80).openapi({ description: 'What the pre-chat form shows.' }),
		type: z.enum(['text', 'select']).openapi({ description: 'Free text or a choice.' }),
		options: z
			.array(z.string().min(1).max(80))
			.max(50)
			.optional()
			.openapi({ description: 'The choices of a `select` field.' }),
		required: z.boolean().openapi({ description: 'Whether the visitor must answer it.' }),
	})
	.refine((f) => f.type !== 'select' || (f.options?.length ?? 0) > 0, {
		message: 'a select field needs at least one option',
		path: ['options'],
	})
	// The refinement above is invisible to the generator: the document states it for clients that validate.
	.openapi(
		'CustomField',
		schemaRules(
			when(
				{ required: ['type'], properties: { type: { const: 'select' } } },
				{ required: ['options'], properties: { options: { type: 'array', minItems: 1 } } },
			),
		),
	);

export const requiredFieldSchema = z.enum(['name', 'email', 'phone']);

/** A per-minute budget per client address: null takes the deployment's default (a var). */
const perIpLimit = z.int().min(1).max(100_000).nullable();

/** The workspace's own visitor abuse limits, per client address and minute (never shown to visitors). */
export const visitorLimitsSchema = z
	.strictObject({
		sessionsPerIp: perIpLimit.openapi({ description: 'New visitor sessions (and handoffs); default 30.' }),
		messagesPerIp: perIpLimit.openapi({ description: 'Visitor messages; default 120.' }),
	})
	.openapi('VisitorLimits');

/**
 * Where the Worker serves an uploaded logo (src/domain/widget/logo.ts), kept as a path: the same value then
 * works on `http://localhost` in development and on the deployment's https origin, whatever its name.
 */
export const UPLOADED_LOGO_PATH = /^\/widget\/([A-Za-z0-9_-]{1,64})\/logo\/[0-9a-f]{64}\.(?:png|jpg|webp|gif)$/;

export const widgetSettingsSchema = z
	.strictObject({
		primaryColor: hexColor.openapi({ description: 'The launcher and accent color.' }),
		backgroundColor: hexColor.openapi({ description: 'The chat background.' }),
		textColor: hexColor.openapi({ description: 'The chat text color.' }),
		welcomeMessage: z.string().max(1000).openapi({ description: 'Shown atop a new chat.' }),
		ctaText: z.string().max(80).openapi({ description: 'The call to action beside the launcher.' }),
		offlineMessage: z.string().max(1000).openapi({ description: 'Shown when the team is away.' }),
		displayName: z.string().max(80).openapi({ description: 'The team name atop the chat.' }),
		/** The logo shown atop the chat: an https URL, or the path of one uploaded with PUT /v3/widget/logo. */
		logoUrl: z
			.union([httpsUrl(), z.string().regex(UPLOADED_LOGO_PATH)], {
				error: 'must be an https URL or the path of a logo uploaded with PUT /v3/widget/logo',
			})
			.nullable()
			.openapi({
				description:
					'The logo atop the chat (200x200 PNG recommended); null for none. An https URL, or, for a logo uploaded with `PUT /v3/widget/logo`, its path on this API (`/widget/{workspaceId}/logo/{sha256}.{ext}`), which the widget resolves against the origin it was loaded from.',
			}),
		position: z.enum(['right', 'left']).openapi({ description: 'Which bottom corner the launcher sits in.' }),
		/** The open chat's colors: the visitor's system preference, or forced light or dark. */
		theme: z.enum(['auto', 'light', 'dark']).openapi({
			description:
				"The open chat's theme: `auto` (default) follows the visitor's `prefers-color-scheme`; `light` and `dark` force one. Dark uses Parley's dark palette (AA contrast) for the background and text in place of `backgroundColor` and `textColor`; `primaryColor` stays the accent.",
		}),
		/** The language the widget falls back to when the visitor's browser speaks neither Portuguese nor English. */
		locale: z
			.enum(['en', 'pt'])
			.openapi({ description: "The widget's language when the browser speaks neither Portuguese nor English." }),
		/** The automatic initial message posted when a conversation starts; null for none. */
		autoMessage: z
			.string()
			.max(1000)
			.nullable()
			.openapi({ description: 'Posted automatically when a conversation starts; null for none.' }),
		businessHours: businessHoursSchema.openapi({ description: 'When the team is available.' }),
		periodMessages: periodMessagesSchema.openapi({
			description: 'What the widget says in each period of the business hours.',
		}),
		messagingBubble: messagingBubbleSchema.openapi({ description: 'The messaging-app (WhatsApp) bubble.' }),
		requiredFields: z
			.array(requiredFieldSchema)
			.max(3)
			.openapi({ description: 'Pre-chat fields the visitor must give (unless already known).' }),
		customFields: z
			.array(customFieldSchema)
			.max(20)
			.refine((fields) => new Set(fields.map((f) => f.name)).size === fields.length, 'field names must be unique')
			.openapi({ description: 'Extra pre-chat fields (20 at most, unique names).' }),
		// Intercom and Chatwoot reopen: the default.
		closedConversationReply: z.enum(['reopen', 'new']).openapi({
			description:
				'A visitor writing on a closed conversation: `reopen` it (default), or refuse (409) so that the visitor starts a `new` one.',
		}),
		/** Raise them for a site whose visitors share one address (an office, a mobile carrier). */
		limits: visitorLimitsSchema.openapi({
			description: 'Per-address limits of this workspace’s widget, a minute; null fields take the defaults.',
		}),
	})
	.openapi('WidgetSettings');

export type WidgetSettings = z.infer<typeof widgetSettingsSchema>;

/** A partial update: any top-level field; the nested objects may themselves be partial. */
export const widgetSettingsUpdateSchema = widgetSettingsSchema
	.extend({
		businessHours: businessHoursSchema.partial().openapi({ description: 'Fields to change; the others stay.' }),
		periodMessages: periodMessagesSchema.partial().openapi({ description: 'Fields to change; the others stay.' }),
		messagingBubble: messagingBubbleFields.partial().openapi({
			description: 'Fields to change; the others stay. Enabled, the bubble needs a `phoneNumber` (given or kept).',
		}),
		limits: visitorLimitsSchema.partial().openapi({ description: 'Fields to change; the others stay.' }),
	})
	.partial()
	.openapi('WidgetSettingsUpdate');

export type WidgetSettingsUpdate = z.infer<typeof widgetSettingsUpdateSchema>;

/**
 * The body of `GET /widget/{workspaceId}/config`: every setting but the abuse limits (see `publicWidgetConfig`),
 * stamped with its workspace and version.
 */
// A new object, not `.extend()`: the generator writes an extension as `allOf` with the strict settings
// object, which no config could satisfy (each part forbids the other's properties).
export const publicWidgetConfigSchema = z
	.strictObject({
		workspaceId: z.string().openapi({ description: 'The workspace the config belongs to.' }),
		version: z
			.number()
			.int()
			.openapi({ description: 'When the settings were last saved (ms since epoch); 0 for the defaults.' }),
		...widgetSettingsSchema.omit({ limits: true }).shape,
	})
	.openapi('PublicWidgetConfig');

const workingDay = [{ start: '09:00', end: '18:00' }];

export const DEFAULT_WIDGET_SETTINGS: WidgetSettings = {
	primaryColor: '#1f6feb',
	backgroundColor: '#ffffff',
	textColor: '#1f2328',
	welcomeMessage: 'Hi there! How can we help?',
	ctaText: 'Chat with us',
	offlineMessage: "We're away right now. Leave a message and we'll get back to you.",
	displayName: 'Support',
	logoUrl: null,
	position: 'right',
	theme: 'auto',
	locale: 'en',
	autoMessage: null,
	closedConversationReply: 'reopen',
	businessHours: {
		enabled: false,
		timeZone: 'UTC',
		weekly: { mon: workingDay, tue: workingDay, wed: workingDay, thu: workingDay, fri: workingDay, sat: [], sun: [] },
		holidays: [],
	},
	periodMessages: {
		inHours: 'We typically reply in a few minutes.',
		outOfHours: "We're outside business hours. Leave a message and we'll reply as soon as we're back.",
		weekend: "It's the weekend. Leave a message and we'll reply on Monday.",
		holiday: "We're closed for a holiday. Leave a message and we'll reply when we're back.",
	},
	messagingBubble: { enabled: false, phoneNumber: null, prefilledMessage: '' },
	requiredFields: [],
	customFields: [],
	limits: { sessionsPerIp: null, messagesPerIp: null },
};

/** Applies a partial update: top-level fields replace, the nested objects merge one level deep. */
export function mergeWidgetSettings(current: WidgetSettings, update: WidgetSettingsUpdate): unknown {
	return {
		...current,
		...update,
		businessHours: { ...current.businessHours, ...update.businessHours },
		periodMessages: { ...current.periodMessages, ...update.periodMessages },
		messagingBubble: { ...current.messagingBubble, ...update.messagingBubble },
		limits: { ...current.limits, ...update.limits },
	};
}

export interface StoredWidgetSettings {
	settings: WidgetSettings;
	/** When they were last saved; null while the workspace still has the defaults. */
	updatedAt: number | null;
}

export async function loadWidgetSettings(db: Database, workspaceId: string): Promise<StoredWidgetSettings> {
	const row = await db
		.select({ settings: widgetSettings.settings, updatedAt: widgetSettings.updatedAt })
		.from(widgetSettings)
		.where(eq(widgetSettings.workspaceId, workspaceId))
		.get();
	if (!row) return { settings: DEFAULT_WIDGET_SETTINGS, updatedAt: null };
	// Stored settings were validated on write; defaults fill fields added by later releases.
	return { settings: { ...DEFAULT_WIDGET_SETTINGS, ...row.settings } as WidgetSettings, updatedAt: row.updatedAt };
}

/**
 * Applies a partial update on top of the stored settings and saves the validated whole. The write only
 * lands if nobody saved in between (compare-and-set on `updated_at`), so two concurrent updates cannot
 * silently overwrite each other: the later one gets a 409 and retries on fresh settings.
 */
export async function updateWidgetSettings(
	db: Database,
	workspaceId: string,
	update: WidgetSettingsUpdate,
	/** The version the update was computed from (If-Match; 0 for the defaults): else a 412, nothing saved. */
	expected?: ExpectedVersion,
) {
	const current = await loadWidgetSettings(db, workspaceId);
	assertVersion(expected, current.updatedAt ?? 0, 'The widget settings');
	const merged = widgetSettingsSchema.safeParse(mergeWidgetSettings(current.settings, update));
	if (!merged.success) throw Invalid.fromIssues(merged.error.issues);
	if (update.customFields !== undefined) await assertDefinedFields(db, workspaceId, update.customFields);
	const logoOwner = update.logoUrl ? UPLOADED_LOGO_PATH.exec(update.logoUrl)?.[1] : undefined;
	if (logoOwner !== undefined && logoOwner !== workspaceId) {
		throw Invalid.fromProblems([{ path: ['logoUrl'], message: "is another workspace's logo" }]);
	}
	// Strictly increasing, so it can serve as the version the widget compares.
	const updatedAt = Math.max(Date.now(), (current.updatedAt ?? 0) + 1);
	const saved =
		current.updatedAt === null
			? await db
					.insert(widgetSettings)
					.values({ workspaceId, settings: merged.data, updatedAt })
					.onConflictDoNothing()
					.returning({ workspaceId: widgetSettings.workspaceId })
			: await db
					.update(widgetSettings)
					.set({ settings: merged.data, updatedAt })
					.where(and(eq(widgetSettings.workspaceId, workspaceId), eq(widgetSettings.updatedAt, current.updatedAt)))
					.returning({ workspaceId: widgetSettings.workspaceId });
	if (saved.length === 0) {
		if (expectsVersion(expected)) throw changedSince('The widget settings');
		throw new Conflict('The widget settings changed while this update was applied; retry it.');
	}
	return { settings: merged.data, updatedAt };
}

/**
 * The pre-chat form's fields must be contact custom fields the workspace defined (their answers are stored
 * there), a select's every option a value its definition accepts, and a field whose definition is a select
 * or a boolean a select itself (free text could not be stored). Throws Invalid naming each bad field.
 */
async function assertDefinedFields(db: Database, workspaceId: string, fields: WidgetSettings['customFields']) {
	if (fields.length === 0) return;
	const definitions = await definitionsOf(db, workspaceId, 'contact');
	const problems: FieldProblem[] = [];
	fields.forEach((field, index) => {
		if (!definitions.has(field.name)) {
			const message = `no custom field "${field.name}" is defined for contacts (define it at /v3/custom-fields)`;
			problems.push({ path: ['customFields', index, 'name'], message });
			return;
		}
		const definition = definitions.get(field.name);
		if (field.type === 'text' && (definition?.type === 'select' || definition?.type === 'boolean')) {
			const message = `"${field.name}" is a ${definition.type} field: ask it as a select of values it accepts`;
			problems.push({ path: ['customFields', index, 'type'], message });
		}
		for (const option of field.options ?? []) {
			try {
				checkCustomValues(definitions, 'contact', { [field.name]: option });
			} catch (error) {
				if (!(error instanceof Invalid)) throw error;
				const why = error.problems[0]?.message ?? error.message;
				problems.push({ path: ['customFields', index, 'options'], message: `"${option}" ${why}` });
			}
		}
	});
	if (problems.length > 0) {
		throw Invalid.fromProblems(problems);
	}
}

/**
 * Checks a pre-chat form against the widget's stored settings: each required field given now or already known
 * for the visitor (`known`: the contact's details, typed or verified), required custom fields present,
 * select values among their options. Fields the page added with `kw('config')` are not in the settings: like
 * every custom value, their answers are checked against the workspace's definitions when they are written.
 * Throws Invalid naming every bad field.
 */
export function assertPrechatFields(
	settings: WidgetSettings,
	details: { name?: string; email?: string; phone?: string },
	custom: Record<string, string>,
	known: { name?: string | null; email?: string | null; phone?: string | null } = {},
): void {
	const problems: string[] = [];
	for (const field of settings.requiredFields) {
		if (details[field] === undefined && !known[field]) problems.push(`json.details.${field}: required by this widget`);
	}
	const stored = new Map(settings.customFields.map((f) => [f.name, f]));
	for (const [name, value] of Object.entries(custom)) {
		const field = stored.get(name);
		if (field?.type === 'select' && !field.options?.includes(value)) {
			problems.push(`json.customFields.${name}: must be one of ${field.options?.join(', ')}`);
		}
	}
	for (const field of settings.customFields) {
		if (field.required && !custom[field.name])
			problems.push(`json.customFields.${field.name}: required by this widget`);
	}
	if (problems.length > 0) throw new Invalid(problems.join('; '));
}

/** The workspace's time zone (its business hours'), which schedules and templates read dates in. */
export async function workspaceTimeZone(db: Database, workspaceId: string): Promise<string> {
	return (await loadWidgetSettings(db, workspaceId)).settings.businessHours.timeZone;
}
