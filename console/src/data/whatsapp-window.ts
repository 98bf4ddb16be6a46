/**
 * The 24-hour customer-service window as the console counts it, and a template's body as it will read: pure,
 * so the conversation's notice and the template picker say what the tests check.
 */

/** Meta's customer-service window: a free-form message reaches the customer this long after their last one. */
export const SERVICE_WINDOW_MS = 24 * 60 * 60 * 1000;

/**
 * When the conversation's window closes (ms), from its customer's last message among those loaded; null when
 * none is loaded (no window is known to be open). A message's time is when Parley received it, later than
 * Meta's timestamp the server counts from: the console uses this only until the server's window answers.
 */
export function windowEnd(messages: ReadonlyArray<{ authorKind: string; createdAt: string }>): number | null {
	for (let i = messages.length - 1; i >= 0; i--) {
		const message = messages[i];
		if (message?.authorKind === 'contact') return Date.parse(message.createdAt) + SERVICE_WINDOW_MS;
	}
	return null;
}

/** The time left as people say it, whole minutes down: 3 h 12 min; nothing left is 0 h 0 min. */
export function timeLeft(ms: number): { hours: number; minutes: number } {
	const minutes = Math.max(0, Math.floor(ms / 60_000));
	return { hours: Math.floor(minutes / 60), minutes: minutes % 60 };
}

/** The window's end from the room's 409 message (`it closed at 2026-11-26T10:15:03.000Z`), if it says. */
export function closedAtOf(reason: string | undefined): string | null {
	const match = reason ? /closed at (\d{4}-\d\d-\d\dT[\d:.]+Z)/.exec(reason) : null;
	return match?.[1] ?? null;
}

/** `{{1}}` or `{{first_name}}` in a template's body replaced by what was typed (the placeholder while empty). */
export function templatePreview(body: string, values: Record<string, string>): string {
	return body.replace(/\{\{\s*(\w+)\s*\}\}/g, (whole, name: string) => values[name]?.trim() || whole);
}
