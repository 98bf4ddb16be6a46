/**
 * What the panel shows, drawn from the state: one conversation (its welcome, the pre-chat form of a new one,
 * its messages and the visitor's still on their way, a closed conversation's note and the composer's mode) or
 * the list of the visitor's conversations; and where the keyboard focus goes when that changes. It changes no
 * state itself: what the visitor does goes out as intents.
 */
import type { Conversation } from '../api-types';
import type { ChatHost } from '../host';
import type { Translate } from '../i18n';
import { adopt, linkStylesheet } from '../sheets';
import type { OpenFile } from './attachments';
import { closedNote } from './closed';
import { Composer } from './composer';
import { type FormValues, PrechatForm } from './fields';
import { PanelHeader } from './header';
import { conversationList } from './list';
import { MessageLog } from './log';
import { node } from './render';
import { type ChatState, type Conditions, composerMode, lastMessage, type Note, type Pending } from './state';
import { PANEL_STYLE } from './styles';
import type { ChatWord } from './words';

/** What the visitor asks of the chat. */
export interface Intents {
	/** Send `text` (with the pre-chat form's values, for a new conversation); false if it was refused. */
	send(text: string, values?: FormValues): boolean;
	/** Send a file (checked already) into the conversation shown; false if it cannot go. */
	sendFile(file: File): boolean;
	/** Reads the stored files of a conversation (its attachments') for showing. */
	files(conversationId: string): OpenFile;
	typing(typing: boolean): void;
	discard(item: Pending): void;
	/** A conversation (null: a new one) picked from the list or a closed conversation's note. */
	pick(conversation: Conversation | null): void;
	list(show: boolean): void;
}

export class ChatView {
	private readonly panel = node('section', 'panel');
	private readonly header: PanelHeader;
	private readonly log: MessageLog;
	private readonly list = node('ul', 'list');
	private readonly typing = node('div', 'typing');
	private readonly composer: Composer;
	/** The pre-chat form of the new conversation on screen, if it asks anything. */
	private form?: PrechatForm;

	/** `conditions`: the config's and the clock's say right now. */
	constructor(
		private readonly host: ChatHost,
		private readonly t: Translate<ChatWord>,
		private readonly conditions: () => Conditions,
		private readonly intents: Intents,
		private state: ChatState,
	) {
		this.log = new MessageLog(t, () => host.config().displayName, intents.files);
		this.panel.hidden = true;
		this.panel.lang = host.locale;
		this.panel.setAttribute('role', 'dialog');
		this.panel.addEventListener('keydown', (event) => {
			if (event.key === 'Escape') host.requestClose();
		});
		// Files dropped anywhere on the panel are attached, as the paperclip's are.
		this.panel.addEventListener('dragover', (event) => {
			if (this.composer.attachable && event.dataTransfer?.types.includes('Files')) event.preventDefault();
		});
		this.panel.addEventListener('drop', (event) => {
			const files = [...(event.dataTransfer?.files ?? [])];
			if (files.length === 0 || !this.composer.attachable) return;
			event.preventDefault();
			void this.composer.attach(files);
		});
		this.header = new PanelHeader(t, host.api, {
			list: () => intents.list(this.state.view !== 'list'),
			close: () => host.requestClose(),
		});
		this.list.hidden = true;
		this.typing.setAttribute('aria-live', 'polite');
		this.composer = new Composer(t, (text) => this.send(text), intents.typing, intents.sendFile);
		this.panel.append(
			this.header.element,
			this.header.banner,
			this.log.element,
			this.list,
			this.typing,
			this.composer.element,
			this.composer.picker,
		);
		const root = host.slot.getRootNode() as ShadowRoot;
		if (!adopt(root, PANEL_STYLE)) linkStylesheet(root, `${host.api}/${__PANEL_STYLESHEET__}`, host.slot);
		host.slot.append(this.panel);
	}

	/** The panel is in the page (a page may take the widget out): only then is a new conversation redrawn. */
	get attached(): boolean {
		return this.log.element.isConnected;
	}

	/** Brings the panel up to `state`; `previous` is what it showed. */
	render(state: ChatState, previous: ChatState): void {
		this.state = state;
		const { t, log, composer, header } = this;
		const redraw = state.shown !== previous.shown;
		// Redrawing removes the focused field: the focus must not fall out of the panel to the page.
		const hadFocus = redraw && this.hasFocus();
		this.panel.hidden = !state.open;
		if (redraw) this.redraw(state);
		else if (state.current && !previous.current) this.follow(state);
		const from = redraw ? 0 : previous.messages.length;
		for (const message of state.messages.slice(from)) log.add(message);
		if (redraw || from < state.messages.length) {
			// What the last message asks for is offered until the conversation moves on.
			const last = lastMessage(state);
			const asked = last && last.authorKind !== 'contact' ? last.interactive : null;
			composer.prompt(asked, (answer) => this.send(answer), log.element, last?.authorKind === 'bot');
		}
		let grew = redraw || from < state.messages.length;
		if (state.uploads !== previous.uploads) {
			for (const upload of state.uploads) log.showUpload(upload);
			for (const gone of previous.uploads) {
				if (!state.uploads.some((u) => u.clientMessageId === gone.clientMessageId))
					log.dropUpload(gone.clientMessageId);
			}
			grew ||= state.uploads.length > previous.uploads.length;
		}
		for (const item of state.pending) {
			if (!redraw && previous.pending.includes(item)) continue;
			log.showPending(item, this.intents.discard);
			grew ||= !previous.pending.some((p) => p.clientMessageId === item.clientMessageId);
		}
		const mode = composerMode(state, this.conditions());
		if (redraw || state.note !== previous.note) this.note(state.note, mode);
		const listing = state.view === 'list';
		this.list.hidden = !listing;
		log.element.hidden = listing;
		composer.element.hidden = listing || mode === 'closed';
		// A file goes into a conversation: the first message starts it.
		composer.attachable = state.current !== null;
		header.listButton.setAttribute('aria-pressed', String(listing));
		header.listButton.hidden = state.conversations.length === 0;
		if (listing && previous.view !== 'list') this.showList(state);
		if (redraw || state.teamTyping !== previous.teamTyping) {
			this.typing.textContent = state.teamTyping ? t('typing', this.host.config().displayName) : '';
		}
		if (state.busy) log.element.setAttribute('aria-busy', 'true');
		else log.element.removeAttribute('aria-busy');
		if (state.problem !== previous.problem) {
			header.problem(state.problem && t(state.problem === 'rate_limited' ? 'tooMany' : 'unreachable'));
		}
		if (hadFocus) this.focusInside();
		if (grew) this.scroll();
	}

	/** The config changed, or the clock turned: the header and the panel's name. */
	refresh(): void {
		const config = this.host.config();
		this.panel.setAttribute('aria-label', this.t('chatWith', config.displayName));
		this.panel.dataset.theme = config.theme;
		this.header.render(config, this.host.availability(), this.state.conversations.length > 0);
	}

	prefill(text: string): void {
		this.composer.prefill(text);
	}

	/** Focus on what the visitor does next: the list, the form's first field, the composer, or the log. */
	focusInside(): void {
		if (this.state.view === 'list') {
			this.list.querySelector('button')?.focus();
			return;
		}
		const target = this.form?.element.querySelector<HTMLElement>('input,select') ?? this.composer.field;
		if (this.composer.element.hidden) this.log.element.focus();
		else target.focus();
	}

	scroll(): void {
		this.log.element.scrollTop = this.log.element.scrollHeight;
	}

	/** The form's values come with a new conversation's first message; a bad field keeps it from going. */
	private send(text: string): boolean {
		let values: FormValues | undefined;
		if (!this.state.current && this.form) {
			values = this.form.collect(this.t) ?? undefined;
			if (!values) return false;
		}
		return this.intents.send(text, values);
	}

	/** A conversation shown anew: the welcome, and a new one's form (which asks what is not known yet). */
	private redraw(state: ChatState) {
		const { t, log } = this;
		const config = this.host.config();
		log.clear();
		if (config.welcomeMessage) log.greet(config.welcomeMessage);
		this.form = undefined;
		if (state.current) return;
		const form = new PrechatForm(config, state.shownOffline, state.known, t);
		if (form.empty) return;
		if (state.shownOffline) form.element.prepend(node('strong', '', t('offlineTitle')));
		this.form = form;
		log.append(form.element);
	}

	/** The new conversation on screen was started by its first message: its form is done with. */
	private follow(state: ChatState) {
		if (state.sentOffline) this.log.append(node('p', 'note-box', this.t('offlineSent')));
		this.form?.element.remove();
		this.form = undefined;
		this.composer.setMode('chat');
	}

	/**
	 * Under the messages: a closed conversation's note (writing reopens it, or a button to start a new one),
	 * with the composer's mode, or why an upload failed.
	 */
	private note(note: Note, mode: 'chat' | 'offline' | 'closed') {
		if ('uploadFailed' in note) {
			const notice = node('p', 'error', this.t('uploadFailed', note.uploadFailed));
			notice.setAttribute('role', 'alert');
			this.log.note(notice);
			return;
		}
		const startNew = () => {
			this.intents.pick(null);
			this.focusInside();
		};
		this.log.note(note.closed ? closedNote(this.t, this.conditions().reopens, startNew) : null);
		this.composer.setMode(mode);
	}

	private showList(state: ChatState) {
		this.list.replaceChildren(
			...conversationList(state.conversations, state.unread, this.host.locale, this.t, (conversation) => {
				this.intents.pick(conversation);
				this.focusInside();
			}),
		);
		this.list.querySelector('button')?.focus();
	}

	private hasFocus(): boolean {
		const root = this.panel.getRootNode() as ShadowRoot;
		return root.activeElement !== null && this.panel.contains(root.activeElement);
	}
}
