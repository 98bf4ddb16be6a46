/**
 * The widget's own words in English and Portuguese. The language follows `init({ locale })`, then the
 * browser's languages, then the workspace's default (settings `locale`). Texts the workspace wrote (welcome,
 * call to action, period messages) are shown as written. The launcher's words are here; the chat's come with
 * the chat (chat/words.ts), so the loader stays small.
 */
export type Locale = 'en' | 'pt';

export type Dictionary<K extends string> = Record<Locale, Record<K, string>>;

export type LauncherWord = keyof (typeof LAUNCHER_WORDS)['en'];

export const LAUNCHER_WORDS: Dictionary<
	'closeChat' | 'chatWith' | 'online' | 'offline' | 'unread' | 'chooseChannel' | 'chatHere' | 'openApp'
> = {
	en: {
		closeChat: 'Close chat',
		chatWith: 'Chat with {0}',
		online: 'Online',
		offline: 'Away',
		unread: '{0} unread messages',
		chooseChannel: 'How would you like to talk to us?',
		chatHere: 'Chat here',
		openApp: 'WhatsApp',
	},
	pt: {
		closeChat: 'Fechar o chat',
		chatWith: 'Conversar com {0}',
		online: 'Online',
		offline: 'Ausente',
		unread: '{0} mensagens não lidas',
		chooseChannel: 'Como prefere falar conosco?',
		chatHere: 'Conversar aqui',
		openApp: 'WhatsApp',
	},
};

function supported(tag: string | undefined): Locale | undefined {
	const language = tag?.toLowerCase().split('-')[0];
	return language === 'en' || language === 'pt' ? language : undefined;
}

/** The first supported of: the explicit option, each browser language in order, the workspace default. */
export function chooseLocale(explicit: string | undefined, browser: readonly string[], fallback: Locale): Locale {
	return supported(explicit) ?? browser.map(supported).find(Boolean) ?? fallback;
}

export type Translate<K extends string> = (key: K, ...args: (string | number)[]) => string;

/** `t(key, ...args)` in `locale`, with `{0}`, `{1}` replaced by the arguments. */
export function translator<K extends string>(dictionary: Dictionary<K>, locale: Locale): Translate<K> {
	const words = dictionary[locale];
	return (key, ...args) => words[key].replace(/\{(\d)\}/g, (_, i: string) => String(args[Number(i)] ?? ''));
}
