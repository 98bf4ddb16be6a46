/** The words of the bot and scenario builders. */
export const en = {
	'automation.nav': 'Automation',
	'builder.bots': 'Bots',
	'builder.scenarios': 'Scenarios',
};

export const pt: Partial<Record<keyof typeof en, string>> = {
	'automation.nav': 'Automação',
	'builder.bots': 'Bots',
	'builder.scenarios': 'Cenários',
};
