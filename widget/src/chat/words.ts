/** The chat's words (the launcher's are in ../i18n.ts). */
import type { Dictionary } from '../i18n';

const en = {
	closeChat: 'Close chat',
	chatWith: 'Chat with {0}',
	placeholder: 'Write a message…',
	send: 'Send',
	sending: 'Sending…',
	tooMany: 'You are sending messages too fast. We will send yours in a moment.',
	unreachable: 'We can’t reach the chat service. Your message is kept and will be sent when we’re back.',
	failed: 'Not sent: {0}',
	discard: 'Remove',
	typing: '{0} is typing…',
	newConversation: 'New conversation',
	conversations: 'Your conversations',
	name: 'Name',
	email: 'E-mail',
	phone: 'Phone (with country code)',
	required: 'Required',
	invalidEmail: 'Enter a valid e-mail address',
	invalidPhone: 'Enter the number with its country code, e.g. +5511999998888',
	invalidNumber: 'Enter a number',
	choose: 'Choose…',
	offlineTitle: 'Leave us a message',
	offlineSent: 'Thanks! We got your message and will reply by e-mail.',
	leaveMessage: 'Send message',
	rate: 'Rate {0} out of 5',
	closed: 'This conversation is closed.',
};

export type ChatWord = keyof typeof en;

export const CHAT_WORDS: Dictionary<ChatWord> = {
	en,
	pt: {
		closeChat: 'Fechar o chat',
		chatWith: 'Conversar com {0}',
		placeholder: 'Escreva uma mensagem…',
		send: 'Enviar',
		sending: 'Enviando…',
		tooMany: 'Você está enviando mensagens rápido demais. A sua será enviada em instantes.',
		unreachable:
			'Não conseguimos falar com o serviço de chat. Sua mensagem está guardada e será enviada assim que voltarmos.',
		failed: 'Não enviada: {0}',
		discard: 'Remover',
		typing: '{0} está digitando…',
		newConversation: 'Nova conversa',
		conversations: 'Suas conversas',
		name: 'Nome',
		email: 'E-mail',
		phone: 'Telefone (com código do país)',
		required: 'Obrigatório',
		invalidEmail: 'Informe um e-mail válido',
		invalidPhone: 'Informe o número com o código do país, ex.: +5511999998888',
		invalidNumber: 'Informe um número',
		choose: 'Escolha…',
		offlineTitle: 'Deixe sua mensagem',
		offlineSent: 'Obrigado! Recebemos sua mensagem e responderemos por e-mail.',
		leaveMessage: 'Enviar mensagem',
		rate: 'Avaliar com {0} de 5',
		closed: 'Esta conversa foi encerrada.',
	},
};
