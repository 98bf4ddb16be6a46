/**
 * The widget declares the Worker's shapes as plain types (widget/src/api-types.ts) so its bundle needs none of
 * the server's modules. This file, checked by `npm run typecheck`, fails to compile when one side changes a
 * shape without the other.
 */
import type { Interactive, MessageView } from '../../src/domain/conversations/messages';
import type { publicWidgetConfig } from '../../src/domain/widget/config';
import type { WidgetSettings } from '../../src/domain/widget/settings';
import type { OriginInput } from '../../src/domain/widget/visitor-sessions';
import type { ServerFrame } from '../../src/protocol/live';
import type { WidgetAvailability } from '../../src/protocol/widget-availability';
import type { ConversationStarted, SessionResponse } from '../../src/routes/widget/contract';
import type * as Widget from '../../widget/src/api-types';

/** True only when A and B are the same type (each assignable to the other). */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

export const widgetContract: [
	Same<Widget.Message, MessageView>,
	Same<Widget.Interactive, Interactive>,
	Same<Widget.Session, SessionResponse>,
	Same<Widget.Conversation, ConversationStarted['conversation']>,
	Same<Widget.Origin, OriginInput>,
	Same<Widget.CustomField, WidgetSettings['customFields'][number]>,
	Same<Widget.WidgetConfig, ReturnType<typeof publicWidgetConfig>>,
	Same<Widget.WidgetAvailability, WidgetAvailability>,
	// The widget understands every frame a visitor's socket can receive (`event`, `alert` and `presence` frames go to
	// operators' feeds only).
	[Exclude<ServerFrame, { type: 'event' | 'alert' | 'presence' }>] extends [Widget.ServerFrame] ? true : false,
] = [true, true, true, true, true, true, true, true, true];
