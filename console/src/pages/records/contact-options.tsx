import type { JSX } from 'preact';
import { useContactOptions } from '../../data/contacts';

/**
 * The contacts a field of contact ids offers as a name, e-mail or phone is typed into it: a `<datalist>` the
 * field names with `list`, each option a contact's id labelled with who it is, so choosing one puts its id in the
 * field (an id pasted as it is still works). `typed` is what the field holds now.
 */
function ContactOptions(props: { id: string; typed: string }) {
	const q = props.typed.trim();
	// An id already chosen or pasted is not searched for again.
	const options = useContactOptions(q.startsWith('ctc_') ? '' : q);
	return (
		<datalist id={props.id} data-testid={props.id}>
			{(options.data?.data ?? []).map((contact) => (
				<option
					key={contact.id}
					value={contact.id}
					label={[contact.name, contact.email, contact.phone].filter(Boolean).join(' · ') || contact.id}
				/>
			))}
		</datalist>
	);
}

/**
 * A field for one contact's id that offers the contacts matching what is typed (ContactOptions, its list's id
 * `${id}-options`). `attributes` go on the input (aria-invalid and the like).
 */
export function ContactIdInput(props: {
	id: string;
	value: string;
	onInput(value: string): void;
	attributes?: JSX.HTMLAttributes<HTMLInputElement>;
}) {
	return (
		<>
			<input
				{...props.attributes}
				id={props.id}
				list={`${props.id}-options`}
				autoComplete="off"
				value={props.value}
				onInput={(e) => props.onInput(e.currentTarget.value)}
			/>
			<ContactOptions id={`${props.id}-options`} typed={props.value} />
		</>
	);
}
