/**
 * What Meta's Cloud API error codes mean for Parley: whether trying again later can succeed, and what to
 * tell an admin. Meta asks for handling built on `code` (plus `details`), never on titles or the HTTP status
 * (WHATSAPP-REF §4, from Meta's error-code table); the status only decides for a code the table lacks.
 * Throttling codes also say what is throttled (`throttle`): the whole number (slow the number's pace) or one
 * recipient (Meta's pair rate: only that customer's messages wait, 4^X seconds apart).
 */

export interface MetaErrorClass {
	/** Trying the same request again later may succeed (throttling, Meta's temporary failures). */
	retryable: boolean;
	/** What happened, in words for the console and the log. */
	meaning: string;
	/** A throttle: of the number (its throughput, the app, the account) or of one recipient (the pair rate). */
	throttle?: 'number' | 'recipient';
	/** A code Meta calls ambiguous: retried this many times at most, then given up. */
	maxRetries?: number;
}

const CODES: Record<number, MetaErrorClass> = {
	0: { retryable: false, meaning: 'The access token was refused: reconnect the number with a valid token.' },
	1: {
		retryable: true,
		maxRetries: 2,
		meaning: 'Meta reports an unknown error (an invalid request or a server error).',
	},
	2: { retryable: true, meaning: 'Meta’s API is temporarily down or overloaded.' },
	4: { retryable: true, throttle: 'number', meaning: 'The app made too many calls: Meta’s app rate limit.' },
	10: { retryable: false, meaning: 'The app lacks a permission this call needs.' },
	100: { retryable: false, meaning: 'Meta refused a parameter of the request.' },
	190: { retryable: false, meaning: 'The access token expired or is invalid: reconnect the number with a new token.' },
	368: { retryable: false, meaning: 'The account is blocked for a policy violation.' },
	80007: { retryable: true, throttle: 'number', meaning: 'The business account reached its rate limit.' },
	130429: {
		retryable: true,
		throttle: 'number',
		meaning: 'The number sent more than its throughput (80 messages a second by default).',
	},
	130472: { retryable: false, meaning: 'The customer is part of a Meta experiment and cannot receive it.' },
	131000: { retryable: true, meaning: 'Something went wrong at Meta; trying again may work.' },
	131005: { retryable: false, meaning: 'Meta denied access to this call.' },
	131008: { retryable: false, meaning: 'A required parameter is missing.' },
	131009: { retryable: false, meaning: 'A parameter value is invalid.' },
	131016: { retryable: true, meaning: 'Meta’s service is temporarily unavailable.' },
	131021: { retryable: false, meaning: 'The recipient is the business number itself.' },
	131026: {
		retryable: false,
		meaning:
			'The message could not be delivered (not on WhatsApp, an old app, terms not accepted, or the business is blocked).',
	},
	131031: { retryable: false, meaning: 'The business account is locked.' },
	131047: {
		retryable: false,
		meaning: 'More than 24 hours passed since the customer’s last message: only an approved template may be sent.',
	},
	131048: {
		retryable: false,
		meaning: 'Meta limits this number for spam reports (its quality): pause sending before trying again.',
	},
	131049: { retryable: false, meaning: 'Meta held back this marketing message to limit what one customer receives.' },
	131050: { retryable: false, meaning: 'The customer stopped marketing messages from this business.' },
	131051: { retryable: false, meaning: 'The message type is not supported.' },
	131052: { retryable: false, meaning: 'The customer’s media could not be downloaded (over 100 MB, or unavailable).' },
	131053: { retryable: false, meaning: 'Meta could not use the media sent (its type does not match its content?).' },
	131056: {
		retryable: true,
		throttle: 'recipient',
		meaning: 'Too many messages to this customer in a short time (Meta’s pair rate limit).',
	},
	131057: { retryable: true, meaning: 'The account is in maintenance (a throughput upgrade, for instance).' },
	131062: { retryable: false, meaning: 'An authentication template cannot be sent to a username-only customer.' },
	132000: { retryable: false, meaning: 'The template’s variables do not match its placeholders.' },
	132001: { retryable: false, meaning: 'The template does not exist in that language, or is not approved.' },
	132005: { retryable: false, meaning: 'The template’s filled text is too long.' },
	132007: { retryable: false, meaning: 'The template breaks a Meta policy.' },
	132012: { retryable: false, meaning: 'A template variable has the wrong format.' },
	132015: { retryable: false, meaning: 'The template is paused for low quality.' },
	132016: { retryable: false, meaning: 'The template is disabled.' },
	133004: { retryable: true, meaning: 'Meta’s server is temporarily unavailable.' },
	133010: { retryable: false, meaning: 'The business number is not registered with the Cloud API.' },
	135000: { retryable: false, meaning: 'Meta reports a generic user error.' },
};

/** The permission codes 200–299: none helps on a retry. */
function permissionCode(code: number): boolean {
	return code >= 200 && code <= 299;
}

/**
 * How Parley treats Meta's error `code` (a number from the error body or a failed status' `errors[]`). For a
 * code the table lacks, the HTTP status decides: a 5xx or 429 may pass, anything else will not.
 */
export function classifyMetaError(code: number | null | undefined, httpStatus?: number): MetaErrorClass {
	if (code !== null && code !== undefined) {
		const known = CODES[code];
		if (known) return known;
		if (permissionCode(code)) return { retryable: false, meaning: 'Meta denied a permission this call needs.' };
	}
	if (httpStatus !== undefined && (httpStatus >= 500 || httpStatus === 429)) {
		return { retryable: true, meaning: `Meta answered ${httpStatus}: a temporary failure.` };
	}
	return { retryable: false, meaning: code == null ? 'Meta refused the request.' : `Meta refused it (code ${code}).` };
}
