import type { Schemas } from '../../api/client';
import { t } from '../../i18n';

export type EventType = Exclude<Schemas['NewWebhookEndpoint']['events'][number], '*'>;

/**
 * The event catalogue (docs/WEBHOOK_EVENTS.md), by area. Written out because types vanish at run time; the
 * check below fails `npm run typecheck` when the API's catalogue has a type this list lacks.
 */
export const EVENT_AREAS = {
	conversations: ['conversation.created', 'conversation.updated', 'conversation.read', 'conversation.waiting'],
	messages: [
		'message.created',
		'mail.sent',
		'mail.failed',
		'canned_reply.created',
		'canned_reply.updated',
		'canned_reply.deleted',
	],
	contacts: ['contact.created', 'contact.updated', 'contact.deleted', 'contact.merged', 'note.created'],
	tags: ['tag.created', 'tag.updated', 'tag.deleted', 'tag.applied', 'tag.removed'],
	team: [
		'member.created',
		'member.updated',
		'member.deleted',
		'member.status_changed',
		'group.created',
		'group.updated',
		'group.deleted',
	],
	crm: [
		'funnel.created',
		'funnel.updated',
		'funnel.deleted',
		'deal.created',
		'deal.updated',
		'deal.stage_changed',
		'deal.deleted',
		'task.created',
		'task.updated',
		'task.deleted',
		'custom_field.created',
		'custom_field.updated',
		'custom_field.deleted',
	],
	automation: [
		'bot.created',
		'bot.updated',
		'bot.published',
		'bot.deleted',
		'bot.run_started',
		'bot.run_ended',
		'bot.notification',
		'scenario.created',
		'scenario.updated',
		'scenario.published',
		'scenario.deleted',
		'scenario.run_ended',
		'scenario.paused',
		'rule.created',
		'rule.updated',
		'rule.deleted',
		'rule.notification',
		'assignment_rule.created',
		'assignment_rule.updated',
		'assignment_rule.deleted',
		'webhook_endpoint.disabled',
	],
} as const satisfies Record<string, readonly EventType[]>;

type Listed = (typeof EVENT_AREAS)[keyof typeof EVENT_AREAS][number];
// Compile-time: every event type of the API is listed above (the type is `true` only when none is missing).
type Unlisted = Exclude<EventType, Listed>;
const everyTypeListed: [Unlisted] extends [never] ? true : Unlisted = true;
void everyTypeListed;

export type Selection = '*' | EventType;

/** The event types to send: every one ("*"), or those ticked, by area. */
export function EventChoice(props: { value: Selection[]; onChange: (value: Selection[]) => void }) {
	const all = props.value.includes('*');
	const toggle = (type: EventType, on: boolean) =>
		props.onChange(on ? [...props.value, type] : props.value.filter((v) => v !== type));
	return (
		<fieldset class="choice events">
			<legend>{t('webhooks.events')}</legend>
			<label class="inline" for="event-all">
				<input
					id="event-all"
					type="checkbox"
					checked={all}
					onChange={(e) => props.onChange(e.currentTarget.checked ? ['*'] : [])}
				/>
				<strong>{t('webhooks.events.all')}</strong>
			</label>
			{!all && (
				<div class="event-areas">
					{Object.entries(EVENT_AREAS).map(([area, types]: [string, readonly EventType[]]) => (
						<fieldset key={area} class="event-area">
							<legend>{t(`webhooks.area.${area}` as 'webhooks.area.crm')}</legend>
							{types.map((type) => (
								<label key={type} class="inline" for={`event-${type}`}>
									<input
										id={`event-${type}`}
										type="checkbox"
										checked={props.value.includes(type)}
										onChange={(e) => toggle(type, e.currentTarget.checked)}
									/>
									<code>{type}</code>
								</label>
							))}
						</fieldset>
					))}
				</div>
			)}
		</fieldset>
	);
}
