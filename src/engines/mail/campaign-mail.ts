/**
 * A campaign's mail, built from its rendered subject and body: the same formatting as every other mail
 * (src/model/formatting.ts, through `formattedHtml`), a plain-text and an escaped HTML part, the headers of a
 * bulk mail Parley sends on its own, and the unsubscribe link in the body and in `List-Unsubscribe` with
 * `List-Unsubscribe-Post` (RFC 8058's one click). Pure: the rendered texts and the signed link come in, the
 * binding's structured message comes out.
 */
import { type ComposedMail, escapeHtml, formattedHtml, UnsafeAddress } from './compose';
import { headerText, isMailAddress, isSafeHeaderValue } from './header-safety';

export interface CampaignMailInput {
	from: { address: string; name: string };
	/** The contact's address (no display name: a contact's name never reaches a header). */
	to: string;
	/** Where a reply goes: the workspace's sender address (a campaign mail belongs to no conversation yet). */
	replyTo: string;
	/** The rendered subject, as written: made one header-safe line here. */
	subject: string;
	/** The rendered body, in the message formatting. */
	body: string;
	workspaceName: string;
	/** The signed link that opts the contact out of campaigns. */
	unsubscribeUrl: string;
}

/**
 * The subject as one header-safe line; the workspace's name when nothing printable is left. Example:
 * `campaignSubject('Hi Ada\r\nBcc: all@x', 'Acme')` is `'Hi Ada Bcc: all@x'`.
 */
export function campaignSubject(subject: string, workspaceName: string): string {
	return headerText(subject) || headerText(`A message from ${headerText(workspaceName) || 'us'}`);
}

function textPart(input: CampaignMailInput): string {
	const name = headerText(input.workspaceName) || 'us';
	return `${input.body}\n\n--\nYou get this mail from ${name}. To unsubscribe: ${input.unsubscribeUrl}\n`;
}

function htmlPart(input: CampaignMailInput): string {
	const name = escapeHtml(headerText(input.workspaceName) || 'us');
	return [
		'<!doctype html><html><body style="font-family:sans-serif;font-size:14px;line-height:1.4">',
		`<div style="white-space:pre-wrap">${formattedHtml(input.body)}</div>`,
		`<p style="margin:24px 0 0;font-size:12px;color:#777">You get this mail from ${name}. `,
		`<a href="${escapeHtml(input.unsubscribeUrl)}">Unsubscribe</a></p>`,
		'</body></html>',
	].join('');
}

/** Builds the mail; throws `UnsafeAddress` when an address (or the link) is not safe in a header. */
export function composeCampaignMail(input: CampaignMailInput): ComposedMail {
	for (const address of [input.from.address, input.to, input.replyTo]) {
		if (!isMailAddress(address)) throw new UnsafeAddress(`not a plain mail address: ${JSON.stringify(address)}`);
	}
	const headers: Record<string, string> = {
		// No person wrote it this moment: auto-responders (RFC 3834) and Exchange's out-of-office leave it
		// unanswered. (No `Precedence: bulk`: the provider accepts only the headers it lists.)
		'Auto-Submitted': 'auto-generated',
		'X-Auto-Response-Suppress': 'All',
	};
	// The provider takes only an https link here, as RFC 8058 asks; under a local http origin the body's link stays.
	if (input.unsubscribeUrl.startsWith('https://')) {
		headers['List-Unsubscribe'] = `<${input.unsubscribeUrl}>`;
		headers['List-Unsubscribe-Post'] = 'List-Unsubscribe=One-Click';
	}
	for (const [name, value] of Object.entries(headers)) {
		if (!isSafeHeaderValue(value)) throw new UnsafeAddress(`unsafe value for ${name}`);
	}
	return {
		from: { email: input.from.address, name: headerText(input.from.name) || headerText(input.workspaceName) },
		to: input.to,
		subject: campaignSubject(input.subject, input.workspaceName),
		text: textPart(input),
		html: htmlPart(input),
		replyTo: input.replyTo,
		headers,
	};
}
