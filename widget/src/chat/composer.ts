/**
 * Where the visitor writes: a textarea (Enter sends, Shift+Enter breaks the line) that becomes a typed input
 * when a bot asks for an e-mail, a number, a date or a file, plus the quick-reply buttons and rating stars a bot's
 * last message offers. Typing is reported at most every 2 s, and stopped after 4 s of quiet or on send. Files
 * come by the paperclip, a paste or a drop on the panel, checked by the Worker's own rules (src/model/files.ts)
 * before anything is sent: a refused one says why here.
 */
import {
	ACCEPTED_FILE_TYPES,
	fileProblem,
	MAX_FILE_BYTES,
	MAX_FILES_PER_SEND,
	SNIFF_BYTES,
} from '../../../src/model/files';
import type { Interactive } from '../api-types';
import { EMAIL, PHONE } from '../commands';
import type { Translate } from '../i18n';
import { icon } from '../icons';
import type { ChatWord } from './words';

const INPUT_TYPES = {
	text: 'text',
	number: 'number',
	email: 'email',
	phone: 'tel',
	date: 'date',
	datetime: 'datetime-local',
	file: 'file',
};

/** What a file picker offers: what the Worker keeps (the bytes are checked before sending, and again there). */
const FILE_TYPES = ACCEPTED_FILE_TYPES.join(',');
const MB = MAX_FILE_BYTES / 1024 / 1024;

export class Composer {
	readonly element = document.createElement('form');
	field: HTMLTextAreaElement | HTMLInputElement;
	private readonly textarea = document.createElement('textarea');
	private readonly button = document.createElement('button');
	private readonly error = document.createElement('span');
	private readonly clip = document.createElement('button');
	/** The paperclip's file picker, kept outside the form (whose field is the textarea or a bot's input). */
	readonly picker = document.createElement('input');
	private choices?: HTMLElement;
	private input?: Interactive & { type: 'input' };
	/** The input was asked by a bot: the bot judges the answer and says what is wrong in its own words. */
	private askedByBot = false;
	private typingSince = 0;
	private quiet?: ReturnType<typeof setTimeout>;

	constructor(
		private readonly t: Translate<ChatWord>,
		private readonly submit: (text: string) => boolean,
		private readonly typing: (typing: boolean) => void,
		private readonly submitFile: (file: File) => boolean,
	) {
		this.element.className = 'composer';
		// The widget's own checks speak the visitor's language; the browser's bubbles would not.
		this.element.noValidate = true;
		this.textarea.rows = 1;
		this.textarea.maxLength = 4000;
		this.textarea.addEventListener('keydown', (event) => {
			if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
				event.preventDefault();
				this.element.requestSubmit();
			}
		});
		this.field = this.textarea;
		this.button.type = 'submit';
		this.button.textContent = '➤';
		this.error.className = 'error';
		this.error.setAttribute('role', 'alert');
		this.clip.type = 'button';
		this.clip.className = 'clip';
		// Drawn, not an emoji: an emoji's look depends on the visitor's fonts.
		this.clip.append(
			icon('M21 11.5 12.5 20a5 5 0 0 1-7-7l9-9a3.3 3.3 0 0 1 4.7 4.7l-9 9a1.7 1.7 0 0 1-2.4-2.4L16 7.1', {
				width: '20',
				height: '20',
				fill: 'none',
				stroke: 'currentColor',
				'stroke-width': '2',
				'stroke-linecap': 'round',
			}),
		);
		this.clip.setAttribute('aria-label', t('attach'));
		this.clip.title = t('attach');
		this.clip.hidden = true;
		this.picker.type = 'file';
		this.picker.multiple = true;
		this.picker.accept = FILE_TYPES;
		this.picker.hidden = true;
		this.picker.className = 'picker';
		this.picker.setAttribute('aria-label', t('attach'));
		this.clip.addEventListener('click', () => this.picker.click());
		this.picker.addEventListener('change', () => {
			const files = [...(this.picker.files ?? [])];
			this.picker.value = '';
			void this.attach(files);
		});
		this.textarea.addEventListener('paste', (event) => {
			// A pasted screenshot (or copied files) is attached; pasted text goes in as text.
			const files = [...(event.clipboardData?.files ?? [])];
			if (files.length === 0 || !this.attachable) return;
			event.preventDefault();
			void this.attach(files);
		});
		this.element.append(this.clip, this.textarea, this.button);
		this.element.addEventListener('submit', (event) => {
			event.preventDefault();
			this.send();
		});
		this.element.addEventListener('input', () => this.typed());
		this.setMode('chat');
	}

	setMode(mode: 'chat' | 'offline' | 'closed') {
		this.element.hidden = mode === 'closed';
		const label = mode === 'offline' ? this.t('leaveMessage') : this.t('send');
		this.button.setAttribute('aria-label', label);
		this.button.title = label;
		this.field.placeholder = this.t('placeholder');
		this.field.setAttribute('aria-label', this.t('placeholder'));
	}

	/** Whether files may be attached: there is a conversation to send them into. */
	get attachable(): boolean {
		return !this.clip.hidden;
	}

	set attachable(attachable: boolean) {
		this.clip.hidden = !attachable;
	}

	/**
	 * Sends the files that pass the Worker's rules, each as a message of its own; says why the others (or too
	 * many at once) are not sent, before anything is.
	 */
	async attach(files: File[]): Promise<void> {
		if (files.length > MAX_FILES_PER_SEND) return this.refuse(this.t('fileCount', String(MAX_FILES_PER_SEND)));
		const refused: string[] = [];
		const taken: File[] = [];
		for (const file of files) {
			const head = new Uint8Array(await file.slice(0, SNIFF_BYTES).arrayBuffer());
			const problem = fileProblem(file.size, head);
			if (problem === 'type') refused.push(this.t('fileType', file.name));
			else if (problem === 'size') refused.push(this.t('fileSize', file.name, String(MB)));
			else taken.push(file);
		}
		if (refused.length > 0) this.refuse(refused.join(' '));
		else this.error.remove();
		for (const file of taken) this.submitFile(file);
	}

	private refuse(problem: string) {
		this.error.textContent = problem;
		this.element.prepend(this.error);
	}

	prefill(text: string) {
		this.field.value = text;
	}

	private typed() {
		const now = Date.now();
		if (now - this.typingSince > 2000) {
			this.typingSince = now;
			this.typing(true);
		}
		clearTimeout(this.quiet);
		this.quiet = setTimeout(() => this.stopTyping(), 4000);
	}

	private stopTyping() {
		clearTimeout(this.quiet);
		if (this.typingSince === 0) return;
		this.typingSince = 0;
		this.typing(false);
	}

	private send() {
		if (this.input?.input === 'file') return this.sendFile();
		const text = this.field.value.trim();
		if (!text) return;
		const problem = this.check(text);
		this.error.textContent = problem ?? '';
		this.field.setAttribute('aria-invalid', String(problem !== null));
		if (problem) {
			this.element.prepend(this.error);
			return;
		}
		this.error.remove();
		if (!this.submit(text)) return;
		this.field.value = '';
		this.stopTyping();
		this.field.focus();
	}

	private sendFile() {
		const field = this.field as HTMLInputElement;
		const file = field.files?.[0];
		if (!file) return;
		field.value = '';
		void this.attach([file]);
	}

	private check(text: string): string | null {
		if (this.askedByBot) return null;
		if (this.input?.input === 'email' && !EMAIL.test(text)) return this.t('invalidEmail');
		if (this.input?.input === 'phone' && !PHONE.test(text.replace(/[\s()-]/g, ''))) return this.t('invalidPhone');
		if (this.input?.input === 'number' && !Number.isFinite(Number(text.replace(',', '.'))))
			return this.t('invalidNumber');
		return null;
	}

	/**
	 * Shows what the last message asks for: buttons or stars under it, or a typed input in the composer; they go
	 * once the conversation moves on (the visitor's answer is then their own message). A bot's typed input is
	 * not checked here: the bot refuses a wrong answer itself, in the words its builder wrote, which the visitor
	 * and the team both see in the conversation.
	 */
	prompt(interactive: Interactive | null, answer: (text: string) => boolean, log: HTMLElement, byBot = false) {
		this.choices?.remove();
		this.choices = undefined;
		const wanted = interactive?.type === 'input' ? interactive : undefined;
		this.askedByBot = byBot;
		if (wanted?.input !== this.input?.input) this.swapField(wanted);
		if (interactive?.type === 'buttons' || interactive?.type === 'rating') {
			const box = document.createElement('div');
			box.className = 'choices';
			box.setAttribute('role', 'group');
			const options =
				interactive.type === 'buttons'
					? interactive.buttons.map((b) => [b.label, b.label])
					: [1, 2, 3, 4, 5].map((n) => [`${'★'.repeat(n)}`, String(n)]);
			for (const [label, value] of options) {
				const button = document.createElement('button');
				button.type = 'button';
				button.textContent = label as string;
				if (interactive.type === 'rating') button.setAttribute('aria-label', this.t('rate', value as string));
				button.addEventListener('click', () => {
					if (!answer(value as string)) return;
					// One answer per question: until the answer is in the log, the choice shows as made and no button
					// can send a second one.
					for (const other of box.querySelectorAll('button')) other.disabled = true;
					button.setAttribute('aria-pressed', 'true');
				});
				box.append(button);
			}
			log.append(box);
			this.choices = box;
		}
	}

	private swapField(input: (Interactive & { type: 'input' }) | undefined) {
		this.input = input;
		const next: HTMLTextAreaElement | HTMLInputElement = input ? document.createElement('input') : this.textarea;
		if (next instanceof HTMLInputElement && input) {
			next.type = INPUT_TYPES[input.input];
			next.placeholder = input.placeholder ?? this.t('placeholder');
			next.setAttribute('aria-label', input.input === 'file' ? this.t('chooseFile') : next.placeholder);
			if (input.input === 'file') next.accept = FILE_TYPES;
		}
		const focused =
			this.field.getRootNode() instanceof ShadowRoot &&
			(this.field.getRootNode() as ShadowRoot).activeElement === this.field;
		this.field.replaceWith(next);
		this.field = next;
		if (focused) next.focus();
	}
}
