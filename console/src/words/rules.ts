/** The words of Automation › Rules and Automation › Assignment. */
export const en = {
	'rules.title': 'Rules',
	'assignment.title': 'Assignment',
};

export const pt: Partial<Record<keyof typeof en, string>> = {
	'rules.title': 'Regras',
	'assignment.title': 'Distribuição',
};
