import { t } from '../../i18n';
import { FieldProblem, invalid, Section, Switch } from './form';
import type { SectionProps } from './widget-appearance';

/** Settings › Widget › Messaging-app bubble: the launcher offers WhatsApp beside the chat. */
export function MessagingBubble({ draft, change, problems }: SectionProps) {
	const bubble = draft.messagingBubble;
	const set = (patch: Partial<typeof bubble>) =>
		change((s) => ({ ...s, messagingBubble: { ...s.messagingBubble, ...patch } }));
	const phoneProblem = problems.get('messagingBubble.phoneNumber');
	const messageProblem = problems.get('messagingBubble.prefilledMessage');
	return (
		<Section id="bubble" title={t('widget.bubble')} intro={t('widget.bubble.intro')}>
			<Switch
				id="bubble-enabled"
				label={t('widget.bubble.enabled')}
				checked={bubble.enabled}
				onChange={(enabled) => set({ enabled })}
			/>
			<div class="grid-2">
				<div class="field">
					<label for="bubble-phone">{t('widget.bubble.phone')}</label>
					<input
						id="bubble-phone"
						type="tel"
						inputMode="tel"
						autoComplete="off"
						placeholder="+5511999998888"
						value={bubble.phoneNumber ?? ''}
						onInput={(e) => set({ phoneNumber: e.currentTarget.value.trim() || null })}
						{...invalid('bubble-phone', phoneProblem)}
					/>
					<FieldProblem id="bubble-phone" message={phoneProblem} />
				</div>
				<div class="field">
					<label for="bubble-message">{t('widget.bubble.message')}</label>
					<input
						id="bubble-message"
						maxLength={500}
						value={bubble.prefilledMessage}
						onInput={(e) => set({ prefilledMessage: e.currentTarget.value })}
						{...invalid('bubble-message', messageProblem)}
					/>
					<FieldProblem id="bubble-message" message={messageProblem} />
				</div>
			</div>
		</Section>
	);
}

/**
 * Settings › Widget › Behaviour: the fallback language, what a visitor writing on a closed conversation
 * gets, and the per-address limits of the workspace's widget (empty: the deployment's defaults).
 */
export function Behaviour({ draft, change, problems }: SectionProps) {
	const limit = (field: 'sessionsPerIp' | 'messagesPerIp') => {
		const id = `limit-${field}`;
		const problem = problems.get(`limits.${field}`);
		return (
			<div class="field">
				<label for={id}>{t(`widget.limits.${field}`)}</label>
				<input
					id={id}
					type="number"
					min={1}
					max={100000}
					placeholder={t('widget.limits.default')}
					value={draft.limits[field] ?? ''}
					onInput={(e) => {
						const value = e.currentTarget.value;
						change((s) => ({ ...s, limits: { ...s.limits, [field]: value === '' ? null : Number(value) } }));
					}}
					{...invalid(id, problem)}
				/>
				<FieldProblem id={id} message={problem} />
			</div>
		);
	};
	return (
		<Section id="behaviour" title={t('widget.behaviour')}>
			<div class="grid-2">
				<div class="field">
					<label for="widget-locale">{t('widget.locale')}</label>
					<select
						id="widget-locale"
						value={draft.locale}
						onChange={(e) => change((s) => ({ ...s, locale: e.currentTarget.value as 'en' | 'pt' }))}
					>
						<option value="en">English</option>
						<option value="pt">Português</option>
					</select>
				</div>
				<div class="field">
					<label for="widget-closed">{t('widget.closedReply')}</label>
					<select
						id="widget-closed"
						value={draft.closedConversationReply}
						onChange={(e) =>
							change((s) => ({ ...s, closedConversationReply: e.currentTarget.value as 'reopen' | 'new' }))
						}
					>
						<option value="reopen">{t('widget.closedReply.reopen')}</option>
						<option value="new">{t('widget.closedReply.new')}</option>
					</select>
				</div>
				{limit('sessionsPerIp')}
				{limit('messagesPerIp')}
			</div>
		</Section>
	);
}
