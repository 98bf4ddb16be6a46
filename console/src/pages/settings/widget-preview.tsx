import { useEffect, useRef } from 'preact/hooks';
import { t } from '../../i18n';
import { CopyButton, isHex } from './form';
import type { WidgetSettings } from './widget-draft';

/** What a page may change with `kw('init', ...)`: the preview follows these as they are typed. */
function liveOptions(draft: WidgetSettings, saved: WidgetSettings) {
	const color = (field: 'primaryColor' | 'backgroundColor' | 'textColor') =>
		isHex(draft[field]) ? draft[field] : saved[field];
	return {
		primaryColor: color('primaryColor'),
		backgroundColor: color('backgroundColor'),
		textColor: color('textColor'),
		welcomeMessage: draft.welcomeMessage.slice(0, 1000),
		ctaText: draft.ctaText.slice(0, 80),
	};
}

/**
 * The real widget, as a site shows it, in a frame of this origin (`/console/preview`, served by the Worker):
 * colors, welcome and call to action follow the form as it is typed (sent with `postMessage`, passed on as
 * `kw('init', ...)`); the rest shows once saved, when the frame reloads with the saved settings. The sandbox
 * only trims what the page may do (no forms, no top navigation): with scripts and its own origin allowed (the
 * widget keeps its state in storage) it is no isolation from the console. What makes the page safe is that the
 * Worker serves it only to a signed-in member of the workspace it previews, with nothing but that widget in it.
 */
export function WidgetPreview(props: {
	workspaceId: string;
	draft: WidgetSettings;
	saved: WidgetSettings;
	/** Changes when the settings were saved: the frame reloads. */
	version: number;
	snippet: string | undefined;
}) {
	const frame = useRef<HTMLIFrameElement>(null);
	const options = liveOptions(props.draft, props.saved);
	const post = (open = false) =>
		frame.current?.contentWindow?.postMessage({ type: 'parley-preview', options, open }, location.origin);
	const latest = useRef(post);
	latest.current = post;
	const serialized = JSON.stringify(options);
	useEffect(() => latest.current(), [serialized]);
	return (
		<aside class="preview" aria-labelledby="preview-title">
			<div class="preview-head">
				<h2 id="preview-title">{t('widget.preview')}</h2>
				<button type="button" onClick={() => post(true)}>
					{t('widget.preview.open')}
				</button>
			</div>
			<iframe
				key={props.version}
				ref={frame}
				title={t('widget.preview.frame')}
				src={`/console/preview?workspaceId=${encodeURIComponent(props.workspaceId)}`}
				sandbox="allow-scripts allow-same-origin allow-popups allow-popups-to-escape-sandbox"
				onLoad={() => latest.current()}
			/>
			<p class="hint muted">{t('widget.preview.note')}</p>
			<h3 id="snippet-title">{t('widget.snippet')}</h3>
			<p class="hint muted">{t('widget.snippet.intro')}</p>
			{props.snippet ? (
				<>
					<pre class="snippet">
						<code>{props.snippet}</code>
					</pre>
					<CopyButton text={props.snippet} label={t('widget.snippet.copy')} />
				</>
			) : (
				<p class="muted">{t('common.loading')}</p>
			)}
		</aside>
	);
}
