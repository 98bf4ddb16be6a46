/**
 * Every query key the console uses, from this one factory: a key is where a read is cached and what a change
 * invalidates, so two features that share data (the inbox and the contact panel, the team page and the
 * capacities) name it the same way, and a prefix (`keys.team.all`) reaches every key under it.
 *
 * Keys are arrays whose first item is the feature; what follows narrows it (an id, a filter). Invalidating a
 * key invalidates every key it is a prefix of (TanStack Query's partial matching), which the data modules
 * rely on: `keys.conversations.all` refreshes the inbox's lists and a contact's conversations alike.
 */
/** What the builder edits (pages/builder/schema.ts names it too; written here so keys import nothing). */
type DocumentKind = 'bot' | 'scenario';

export const keys = {
	session: ['session'],
	/** The workspace's directory (operators, groups, bots, custom fields), its tags and funnels. */
	directory: ['directory'],
	tags: ['tags'],
	funnels: ['funnels'],
	me: ['me'],
	/** The signed-in member's own mail alerts (not under `me`: a new token does not change them). */
	myNotifications: ['my-notifications'],
	/** What alerts the member (the same settings row, read apart), its unread counts and push subscriptions. */
	myAlerts: ['my-alerts'],
	unread: ['unread'],
	pushSubscriptions: ['push-subscriptions'],
	apiLogs: {
		all: ['api-logs'],
		list: (query: object) => ['api-logs', query],
	},
	conversations: {
		all: ['conversations'],
		list: (query: object) => ['conversations', query],
		ofContact: (contactId: string) => ['conversations', { contactId }],
		search: (query: object) => ['conversations', 'search', query],
	},
	conversation: (id: string) => ['conversation', id],
	botRuns: (conversationId: string) => ['bot-runs', conversationId],
	contacts: {
		all: ['contacts'],
		list: (query: object) => ['contacts', query],
		mergeCandidates: (q: string, into: string) => ['contacts', { q, merge: into }],
		options: (q: string) => ['contacts', { q, options: true }],
	},
	contact: (id: string) => ['contact', id],
	deals: {
		all: ['deals'],
		board: (funnelId: string | undefined) => ['deals', { funnelId, board: true }],
		ofContact: (contactId: string) => ['deals', { contactId }],
	},
	deal: (id: string) => ['deal', id],
	dealNotes: (id: string) => ['deal-notes', id],
	tasks: {
		all: ['tasks'],
		today: ['tasks', 'today'],
	},
	canned: {
		all: ['canned-replies'],
		list: ['canned-replies', 'all'],
		matches: (q: string | null) => ['canned-replies', { q }],
	},
	team: {
		all: ['team'],
		members: ['team', 'members'],
		/** The team page's list (the disabled too) and the capacities' (the enabled only): two reads, two keys. */
		membersOf: (which: 'all' | 'enabled') => ['team', 'members', which],
		groups: ['team', 'groups'],
		presence: ['team', 'presence'],
		sessions: (operatorId: string) => ['team', 'sessions', operatorId],
	},
	customFieldsAll: ['custom-fields'],
	customFields: (entity: string) => ['custom-fields', entity],
	widget: {
		settings: ['widget-settings'],
		info: ['widget-info'],
		identity: ['widget-identity'],
	},
	webhooks: {
		all: ['webhooks'],
		deliveries: (endpointId: string) => ['webhook-deliveries', endpointId],
		deliveriesOf: (endpointId: string, status: string) => ['webhook-deliveries', endpointId, status],
		delivery: (endpointId: string, deliveryId: string, version: string) => [
			'webhook-delivery',
			endpointId,
			deliveryId,
			version,
		],
	},
	rules: {
		all: ['automation-rules'],
		one: (id: string | null) => ['automation-rules', id],
		recentExecutions: ['rule-executions', 'recent'],
		executions: (ruleId: string, status: string) => ['rule-executions', ruleId, status],
	},
	assignment: {
		rules: ['assignment-rules'],
		rule: (id: string | undefined) => ['assignment-rule', id],
		queue: ['assignment-queue'],
	},
	/** Bots and scenarios: `all(kind)` reaches the list and every document of the kind, with its versions and runs. */
	documents: {
		all: (kind: DocumentKind) => [kind],
		list: (kind: DocumentKind) => [kind, 'list'],
		one: (kind: DocumentKind, id: string) => [kind, id],
		versions: (kind: DocumentKind, id: string) => [kind, id, 'versions'],
		version: (kind: DocumentKind, id: string, version: number | null) => [kind, id, 'version', version],
		runs: (scenarioId: string) => ['scenario', scenarioId, 'runs'],
	},
	automationSettings: ['automation-settings'],
	templatePreview: (template: string, samples: object) => ['template-preview', template, samples],
	email: {
		settings: ['email-settings'],
		addresses: ['email-addresses'],
		inbound: (status: string) => ['email-inbound', status],
		mail: (id: string) => ['email-mail', id],
		deliveries: (status: string) => ['email-deliveries', status],
		/** A conversation's received mails and its messages' mail states: what a mail event refreshes. */
		ofConversation: (conversationId: string) => ['conversation-mail', conversationId],
		states: (conversationId: string, newestSeq: number) => ['conversation-mail', conversationId, 'states', newestSeq],
		mails: (conversationId: string) => ['conversation-mail', conversationId, 'mails'],
	},
	whatsapp: {
		numbers: ['whatsapp-numbers'],
		conversationTemplates: (conversationId: string) => ['whatsapp-conversation-templates', conversationId],
		/** A conversation's window, read again once the customer's newest message is another. */
		window: (conversationId: string, lastCustomerSeq: number) => ['whatsapp-window', conversationId, lastCustomerSeq],
	},
	/** Campaigns: `all` reaches the list, each campaign and the reports' list of them. */
	campaigns: {
		all: ['campaigns'],
		list: ['campaigns', 'list'],
		one: (id: string) => ['campaigns', 'one', id],
		preview: (id: string, version: string, contactId: string) => [
			'campaigns',
			'one',
			id,
			'preview',
			version,
			contactId,
		],
	},
	numberTemplates: (numberId: string) => ['whatsapp-number-templates', numberId],
	scenarioWebhooks: (scenarioId: string) => ['scenario', scenarioId, 'webhooks'],
	reports: {
		conversations: (query: object) => ['reports', 'conversations', query],
		campaign: (campaignId: string | undefined) => ['reports', 'campaign', campaignId],
		recipients: (campaignId: string) => ['reports', 'campaign', campaignId, 'recipients'],
		campaigns: ['campaigns', 'reports'],
	},
} as const;
