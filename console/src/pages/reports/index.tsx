import { t } from '../../i18n';
import type { ConsoleSession } from '../../session';

/** The Reports page (a chunk of its own). */
export default function ReportsPage(_: { session: ConsoleSession }) {
	return <h1>{t('reports.title')}</h1>;
}
