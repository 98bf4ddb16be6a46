/**
 * The shapes the widget exchanges with the Worker's public endpoints, written as plain types so the widget
 * compiles without the server's modules (zod, drizzle, Workers types). test/types/widget-contract.ts checks,
 * at typecheck time, that each one matches the server's own schema (src/protocol/*, src/domain/*).
 */
export type AuthorKind = 'contact' | 'operator' | 'bot' | 'system';

export interface Attachment {
	url: string;
	name: string;
	contentType: string;
	size: number;
}

/** What a bot (or an operator through the API) asks of the visitor, rendered under its message. */
export type Interactive =
	| { type: 'buttons'; buttons: { label: string }[] }
	| { type: 'input'; input: 'text' | 'number' | 'email' | 'phone' | 'date' | 'datetime' | 'file'; placeholder?: string }
	| { type: 'rating'; max: 5 };

export interface Message {
	id: string;
	conversationId: string;
	seq: number;
	authorKind: AuthorKind;
	authorId: string | null;
	text: string;
	attachments: Attachment[];
	interactive: Interactive | null;
	clientMessageId: string | null;
	/** Always false here: the team's private notes never reach the visitor (their seqs are simply skipped). */
	private: boolean;
	createdAt: string;
}

export interface Conversation {
	id: string;
	status: string;
	lastMessageSeq: number;
	unread: number;
	createdAt: string;
	lastMessageAt: string | null;
}

export interface Origin {
	utmSource?: string;
	utmMedium?: string;
	utmCampaign?: string;
	utmContent?: string;
	utmTerm?: string;
	gclid?: string;
	fbclid?: string;
	landingUrl?: string;
	referrer?: string;
}

export interface Session {
	visitorId: string;
	sessionToken: string;
	resumed: boolean;
	conversations: Conversation[];
	/** With an identity in the request: whether it was verified. */
	identified?: { verified: boolean; unverifiedReason: string | null; refusal?: string };
}

export interface Details {
	name?: string;
	email?: string;
	phone?: string;
}

export interface CustomField {
	name: string;
	label: string;
	type: 'text' | 'select';
	options?: string[];
	required: boolean;
}

export type RequiredField = 'name' | 'email' | 'phone';

export interface Interval {
	start: string;
	end: string;
}

/** GET /widget/{workspaceId}/config. */
export interface WidgetConfig {
	workspaceId: string;
	version: number;
	primaryColor: string;
	backgroundColor: string;
	textColor: string;
	welcomeMessage: string;
	ctaText: string;
	offlineMessage: string;
	displayName: string;
	/** An https URL, or an uploaded logo's path on the Worker (`/widget/{ws}/logo/…`): resolve it against the Worker. */
	logoUrl: string | null;
	position: 'right' | 'left';
	/** The open chat's colors: the visitor's `prefers-color-scheme`, or forced (the chat's styles.ts). */
	theme: 'auto' | 'light' | 'dark';
	locale: 'en' | 'pt';
	autoMessage: string | null;
	/** A visitor writing on a closed conversation: the Worker reopens it, or refuses (409) so a new one starts. */
	closedConversationReply: 'reopen' | 'new';
	businessHours: {
		enabled: boolean;
		timeZone: string;
		weekly: Record<'mon' | 'tue' | 'wed' | 'thu' | 'fri' | 'sat' | 'sun', Interval[]>;
		holidays: string[];
	};
	periodMessages: { inHours: string; outOfHours: string; weekend: string; holiday: string };
	messagingBubble: { enabled: boolean; phoneNumber: string | null; prefilledMessage: string };
	requiredFields: RequiredField[];
	customFields: CustomField[];
}

/** What the widget shows of the team's availability now (src/protocol/widget-availability.ts computes it). */
export interface WidgetAvailability {
	online: boolean;
	period: 'in_hours' | 'out_of_hours' | 'weekend' | 'holiday' | 'always';
	availabilityMessage: string;
}

/** The frames the conversation socket sends a visitor (src/protocol/live.ts). */
export type ServerFrame =
	| { type: 'message'; message: Message }
	| { type: 'synced'; lastSeq: number; complete: boolean }
	| { type: 'typing'; author: 'contact' | 'operator'; operatorId: string | null; typing: boolean }
	| { type: 'read'; reader: 'contact' | 'operator'; seq: number }
	| { type: 'ack'; clientMessageId: string; message: Message }
	| { type: 'error'; error: string; message: string; statusCode: number; clientMessageId?: string }
	| { type: 'pong' };

/** The spec's error body. */
export interface ErrorBody {
	error: string;
	message: string;
	statusCode: number;
}
