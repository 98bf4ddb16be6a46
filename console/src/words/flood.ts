/**
 * The words of flood protection: the notice an admin gets on any page when a scenario is paused, the paused
 * mark with its Resume, and the workspace's limit. In the first load, since the notice may come on any page.
 */
export const en = {
	'flood.notice': 'Scenario “{name}” was paused: it started more than {n} runs in a minute, the workspace’s limit.',
	'flood.open': 'Open the scenario',
	'flood.dismiss': 'Dismiss',
	'flood.paused': 'Paused',
	'flood.pausedTitle': 'Paused by flood protection',
	'flood.pausedWhy':
		'Paused {when}: it started more than {n} runs a minute, the workspace’s limit. Nothing starts it until it is resumed.',
	'flood.pausedShort': 'since {when}: more than {n} runs a minute',
	'flood.resume': 'Resume',
	'flood.resumeName': 'Resume {name}',
	'flood.limitTitle': 'Flood protection',
	'flood.limitIntro':
		'A scenario that starts more runs in a minute than this (a loop, a sender gone wild) is paused until an admin resumes it, and admins are told at once.',
	'flood.limit': 'Runs one scenario may start in a minute',
	'flood.save': 'Save limit',
	'flood.saved': 'Limit saved',
};

export const pt: Record<keyof typeof en, string> = {
	'flood.notice':
		'O cenário “{name}” foi pausado: iniciou mais de {n} execuções em um minuto, o limite do espaço de trabalho.',
	'flood.open': 'Abrir o cenário',
	'flood.dismiss': 'Dispensar',
	'flood.paused': 'Pausado',
	'flood.pausedTitle': 'Pausado pela proteção contra excesso',
	'flood.pausedWhy':
		'Pausado {when}: iniciou mais de {n} execuções por minuto, o limite do espaço de trabalho. Nada o inicia até ser retomado.',
	'flood.pausedShort': 'desde {when}: mais de {n} execuções por minuto',
	'flood.resume': 'Retomar',
	'flood.resumeName': 'Retomar {name}',
	'flood.limitTitle': 'Proteção contra excesso',
	'flood.limitIntro':
		'Um cenário que inicia mais execuções em um minuto do que isto (um loop, um remetente descontrolado) é pausado até um administrador retomá-lo, e os administradores são avisados na hora.',
	'flood.limit': 'Execuções que um cenário pode iniciar por minuto',
	'flood.save': 'Salvar limite',
	'flood.saved': 'Limite salvo',
};
