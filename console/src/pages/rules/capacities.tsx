/**
 * The operators' capacities beside the rules that use them: the most open conversations each takes (empty:
 * no limit), changed in place. The same field as Settings › Team, where the rest of a member is edited.
 */
import { useState } from 'preact/hooks';
import type { Schemas } from '../../api/client';
import { useEnabledMembers, useSaveCapacity } from '../../data/assignment';
import { t } from '../../i18n';
import { useSubmit } from '../../ui/hooks';
import { Problem } from '../../ui/problem';
import { fieldProblems, invalid } from './fields';

type Member = Schemas['Operator'];

export function Capacities() {
	const members = useEnabledMembers();
	return (
		<section class="rules-section" aria-labelledby="asg-capacity-title">
			<h2 id="asg-capacity-title">{t('assignment.capacities')}</h2>
			<p class="muted intro">{t('assignment.capacities.intro')}</p>
			{members.isPending && <p class="muted">{t('common.loading')}</p>}
			{members.error && <Problem error={members.error} retry={() => members.refetch()} />}
			<ul class="capacities">
				{members.data?.data.map((member) => (
					<CapacityRow key={member.id} member={member} />
				))}
			</ul>
		</section>
	);
}

function CapacityRow({ member }: { member: Member }) {
	const saveCapacity = useSaveCapacity(member.id);
	const initial = member.capacity === null ? '' : String(member.capacity);
	const [value, setValue] = useState(initial);
	const save = useSubmit(() => saveCapacity(value === '' ? null : Number(value)));
	const id = `capacity-${member.id}`;
	const problem = fieldProblems(save.error).get('capacity');
	return (
		<li>
			<label for={id}>{member.name}</label>
			<input
				id={id}
				type="number"
				min={0}
				placeholder={t('assignment.unlimited')}
				value={value}
				{...invalid(id, problem)}
				onInput={(e) => setValue(e.currentTarget.value)}
			/>
			<button type="button" disabled={value === initial || save.busy} onClick={() => save.submit()}>
				{t('rules.save')}
			</button>
			{save.error !== null && <Problem error={save.error} />}
		</li>
	);
}
