/**
 * What the widget shows about the team's availability at an instant: shared by the Worker (GET
 * /v3/widget/info) and the widget itself, which computes it in the visitor's browser from the cached config so
 * the indicator changes at the turn of the hour without a request. Pure, like the business-hours engine.
 */
import { availabilityAt, type BusinessSchedule, type Period } from '../model/business-hours';

export interface AvailabilitySettings {
	welcomeMessage: string;
	offlineMessage: string;
	/** `enabled` is the operator-interface setting "consider business hours". */
	businessHours: BusinessSchedule & { enabled: boolean };
	periodMessages: { inHours: string; outOfHours: string; weekend: string; holiday: string };
}

export interface WidgetAvailability {
	online: boolean;
	period: Period | 'always';
	availabilityMessage: string;
}

/**
 * With business hours off the team is always shown online; otherwise the schedule decides, with the message
 * of the period (an empty period message falls back to the general one of the same mood).
 *
 * @example widgetAvailability(settings, new Date()) // { online: false, period: 'weekend', availabilityMessage: '…' }
 */
export function widgetAvailability(settings: AvailabilitySettings, at: Date): WidgetAvailability {
	if (!settings.businessHours.enabled) {
		return { online: true, period: 'always', availabilityMessage: settings.welcomeMessage };
	}
	const { online, period } = availabilityAt(settings.businessHours, at);
	const messages = settings.periodMessages;
	const text = {
		in_hours: messages.inHours,
		out_of_hours: messages.outOfHours,
		weekend: messages.weekend,
		holiday: messages.holiday,
	};
	return {
		online,
		period,
		availabilityMessage: text[period] || (online ? settings.welcomeMessage : settings.offlineMessage),
	};
}
