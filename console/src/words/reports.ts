/** The words of the Reports page. */
export const en = {
	'reports.title': 'Reports',
};

export const pt: Partial<Record<keyof typeof en, string>> = {
	'reports.title': 'Relatórios',
};
