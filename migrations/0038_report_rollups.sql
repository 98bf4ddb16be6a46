-- Hand-written (drizzle-kit knows no views or triggers), see docs/decisions/0080: the conversations report's
-- rollups, kept by triggers on `conversations`, so the statement that writes a conversation (whichever batch
-- of whichever route, room or consumer sends it) writes what the report counts of it in the same transaction.
--
-- `report_days`: per workspace and local day (YYYY-MM-DD in the rollups' time zone) of creation, up to 8 rows
-- (`part`: the dimension set's id modulo 8, so that a busy day's change rewrites an eighth of its figures). Its
-- `figures` is a JSON object keyed by a dimension set's id (`report_dimension_sets`: the conversation's
-- status, channel, assignee, group, ad click, utm_source, utm_medium and utm_campaign now, as a JSON array),
-- each `[conversations, first responses, their sum in ms, resolutions (closed now), their sum in ms, the first
-- responses' histogram, the resolutions' histogram]`. A histogram maps a bucket (its number in
-- `report_duration_buckets`) to `[count, sum of ms]`. A report reads at most 8 rows per day of its range and
-- the workspace's dimension sets, however many conversations the days hold.
-- The index the report walked (every column it grouped by, after the creation time) has no reader left.
DROP INDEX `conversations_report`;--> statement-breakpoint
CREATE TABLE `report_dimension_sets` (
	`id` integer PRIMARY KEY,
	`workspace_id` text NOT NULL,
	`dimensions` text NOT NULL
);--> statement-breakpoint
CREATE UNIQUE INDEX `report_dimension_sets_workspace` ON `report_dimension_sets` (`workspace_id`, `dimensions`);--> statement-breakpoint
CREATE TABLE `report_days` (
	`workspace_id` text NOT NULL,
	`day` text NOT NULL,
	`part` integer NOT NULL,
	`figures` text NOT NULL,
	PRIMARY KEY (`workspace_id`, `day`, `part`)
) WITHOUT ROWID;--> statement-breakpoint
-- The histograms' buckets: number 0 from 0, then number k + 1 from 1 s × 2^(k/16) for k = 0…416 (beyond 400
-- days), so a bucket is at most 4.5% wide above 1 s and 1 s wide below it.
CREATE TABLE `report_duration_buckets` (`lower_ms` integer PRIMARY KEY, `bucket` integer NOT NULL) WITHOUT ROWID;--> statement-breakpoint
INSERT INTO `report_duration_buckets` (`lower_ms`, `bucket`)
	WITH RECURSIVE b(k, v) AS (SELECT 0, 1000.0 UNION ALL SELECT k + 1, v * 1.0442737824274138 FROM b WHERE k < 416)
	SELECT 0, 0 UNION ALL SELECT CAST(v AS INTEGER), k + 1 FROM b;--> statement-breakpoint
-- The time zone each workspace's rollups are by day in (none: UTC), and each zone's UTC offsets from each
-- change on; the report rebuilds a workspace's rollups when its zone is no longer the workspace's.
CREATE TABLE `report_rollup_zones` (
	`workspace_id` text PRIMARY KEY NOT NULL,
	`time_zone` text NOT NULL
);--> statement-breakpoint
CREATE TABLE `report_zone_offsets` (
	`time_zone` text NOT NULL,
	`starts_at` integer NOT NULL,
	`offset_ms` integer NOT NULL,
	PRIMARY KEY (`time_zone`, `starts_at`)
) WITHOUT ROWID;--> statement-breakpoint
-- A change to count: a conversation's figures with `sign` 1 (it now is so) or -1 (it no longer is). An
-- empty view whose only use is the trigger below, so the arithmetic is written once for every writer.
CREATE VIEW `report_conversation_changes` AS SELECT NULL AS workspace_id, NULL AS created_at, NULL AS status,
	NULL AS channel, NULL AS assignee_id, NULL AS group_id, NULL AS ad_click, NULL AS utm_source,
	NULL AS utm_medium, NULL AS utm_campaign, NULL AS first_response_at, NULL AS status_changed_at, NULL AS sign
	WHERE 0;--> statement-breakpoint
-- The same change placed: its day, its dimension set, and each duration (ms) with its bucket.
CREATE VIEW `report_day_changes` AS SELECT NULL AS workspace_id, NULL AS day, NULL AS dimension_set,
	NULL AS first_response_ms, NULL AS first_response_bucket, NULL AS resolution_ms, NULL AS resolution_bucket,
	NULL AS sign WHERE 0;--> statement-breakpoint
CREATE TRIGGER `report_conversation_changes_place` INSTEAD OF INSERT ON `report_conversation_changes` BEGIN
	INSERT INTO report_dimension_sets (workspace_id, dimensions)
		VALUES (new.workspace_id, json_array(new.status, new.channel, new.assignee_id, new.group_id, new.ad_click,
			new.utm_source, new.utm_medium, new.utm_campaign))
		ON CONFLICT DO NOTHING;
	INSERT INTO report_day_changes
		SELECT new.workspace_id, date(local_ms / 1000, 'unixepoch'),
			(SELECT id FROM report_dimension_sets WHERE workspace_id = new.workspace_id AND dimensions = json_array(
				new.status, new.channel, new.assignee_id, new.group_id, new.ad_click, new.utm_source, new.utm_medium,
				new.utm_campaign)),
			fr, coalesce((SELECT bucket FROM report_duration_buckets WHERE lower_ms <= fr ORDER BY lower_ms DESC LIMIT 1), 0),
			res, coalesce((SELECT bucket FROM report_duration_buckets WHERE lower_ms <= res ORDER BY lower_ms DESC LIMIT 1),
				0),
			new.sign
		FROM (SELECT new.created_at + coalesce((SELECT o.offset_ms FROM report_rollup_zones z
				JOIN report_zone_offsets o ON o.time_zone = z.time_zone
				WHERE z.workspace_id = new.workspace_id AND o.starts_at <= new.created_at
				ORDER BY o.starts_at DESC LIMIT 1), 0) AS local_ms,
			new.first_response_at - new.created_at AS fr,
			CASE WHEN new.status = 'closed' THEN new.status_changed_at - new.created_at END AS res);
END;--> statement-breakpoint
-- Adds the change to its day's figures: creates the day and the set's entry at zero, adds, then removes the
-- entries back at zero, so a day's figures are the same however its conversations came to be as they are.
CREATE TRIGGER `report_day_changes_add` INSTEAD OF INSERT ON `report_day_changes` BEGIN
	INSERT INTO report_days (workspace_id, day, part, figures) VALUES (new.workspace_id, new.day, new.dimension_set % 8, '{}')
		ON CONFLICT DO NOTHING;
	UPDATE report_days SET figures = json_insert(figures, '$."' || new.dimension_set || '"',
			json('[0,0,0,0,0,{},{}]'))
		WHERE workspace_id = new.workspace_id AND day = new.day AND part = new.dimension_set % 8;
	UPDATE report_days SET figures = json_set(figures,
			'$."' || new.dimension_set || '"[0]', json_extract(figures, '$."' || new.dimension_set || '"[0]') + new.sign)
		WHERE workspace_id = new.workspace_id AND day = new.day AND part = new.dimension_set % 8;
	UPDATE report_days SET figures = json_set(figures,
			'$."' || new.dimension_set || '"[1]', json_extract(figures, '$."' || new.dimension_set || '"[1]') + new.sign,
			'$."' || new.dimension_set || '"[2]',
			json_extract(figures, '$."' || new.dimension_set || '"[2]') + new.sign * new.first_response_ms,
			'$."' || new.dimension_set || '"[5]."' || new.first_response_bucket || '"', json_array(
				coalesce(json_extract(figures, '$."' || new.dimension_set || '"[5]."' || new.first_response_bucket || '"[0]'), 0)
					+ new.sign,
				coalesce(json_extract(figures, '$."' || new.dimension_set || '"[5]."' || new.first_response_bucket || '"[1]'), 0)
					+ new.sign * new.first_response_ms))
		WHERE workspace_id = new.workspace_id AND day = new.day AND part = new.dimension_set % 8 AND new.first_response_ms IS NOT NULL;
	UPDATE report_days SET figures = json_set(figures,
			'$."' || new.dimension_set || '"[3]', json_extract(figures, '$."' || new.dimension_set || '"[3]') + new.sign,
			'$."' || new.dimension_set || '"[4]',
			json_extract(figures, '$."' || new.dimension_set || '"[4]') + new.sign * new.resolution_ms,
			'$."' || new.dimension_set || '"[6]."' || new.resolution_bucket || '"', json_array(
				coalesce(json_extract(figures, '$."' || new.dimension_set || '"[6]."' || new.resolution_bucket || '"[0]'), 0)
					+ new.sign,
				coalesce(json_extract(figures, '$."' || new.dimension_set || '"[6]."' || new.resolution_bucket || '"[1]'), 0)
					+ new.sign * new.resolution_ms))
		WHERE workspace_id = new.workspace_id AND day = new.day AND part = new.dimension_set % 8 AND new.resolution_ms IS NOT NULL;
	UPDATE report_days SET figures = json_remove(figures, '$."' || new.dimension_set || '"[5]."' || new.first_response_bucket || '"')
		WHERE workspace_id = new.workspace_id AND day = new.day AND part = new.dimension_set % 8
			AND new.sign < 0 AND json_extract(figures, '$."' || new.dimension_set || '"[5]."' || new.first_response_bucket || '"[0]') = 0;
	UPDATE report_days SET figures = json_remove(figures, '$."' || new.dimension_set || '"[6]."' || new.resolution_bucket || '"')
		WHERE workspace_id = new.workspace_id AND day = new.day AND part = new.dimension_set % 8
			AND new.sign < 0 AND json_extract(figures, '$."' || new.dimension_set || '"[6]."' || new.resolution_bucket || '"[0]') = 0;
	UPDATE report_days SET figures = json_remove(figures, '$."' || new.dimension_set || '"')
		WHERE workspace_id = new.workspace_id AND day = new.day AND part = new.dimension_set % 8
			AND new.sign < 0 AND json_extract(figures, '$."' || new.dimension_set || '"[0]') = 0;
	DELETE FROM report_days WHERE workspace_id = new.workspace_id AND day = new.day AND part = new.dimension_set % 8
		AND new.sign < 0 AND figures = '{}';
END;--> statement-breakpoint
-- The writers: a conversation created, changed in anything the report counts, or deleted.
CREATE TRIGGER `report_conversations_insert` AFTER INSERT ON `conversations` BEGIN
	INSERT INTO report_conversation_changes VALUES (new.workspace_id, new.created_at, new.status, new.channel,
		new.assignee_id, new.group_id, new.ad_click, new.utm_source, new.utm_medium, new.utm_campaign,
		new.first_response_at, new.status_changed_at, 1);
END;--> statement-breakpoint
CREATE TRIGGER `report_conversations_delete` AFTER DELETE ON `conversations` BEGIN
	INSERT INTO report_conversation_changes VALUES (old.workspace_id, old.created_at, old.status, old.channel,
		old.assignee_id, old.group_id, old.ad_click, old.utm_source, old.utm_medium, old.utm_campaign,
		old.first_response_at, old.status_changed_at, -1);
END;--> statement-breakpoint
CREATE TRIGGER `report_conversations_update` AFTER UPDATE OF workspace_id, created_at, status, channel, assignee_id,
	group_id, gclid, fbclid, ctwa_clid, utm_source, utm_medium, utm_campaign, first_response_at, status_changed_at
	ON `conversations`
	WHEN old.workspace_id IS NOT new.workspace_id OR old.created_at IS NOT new.created_at
		OR old.status IS NOT new.status OR old.channel IS NOT new.channel OR old.assignee_id IS NOT new.assignee_id
		OR old.group_id IS NOT new.group_id OR old.ad_click IS NOT new.ad_click OR old.utm_source IS NOT new.utm_source
		OR old.utm_medium IS NOT new.utm_medium OR old.utm_campaign IS NOT new.utm_campaign
		OR old.first_response_at IS NOT new.first_response_at
		OR (new.status = 'closed' AND old.status_changed_at IS NOT new.status_changed_at)
BEGIN
	INSERT INTO report_conversation_changes VALUES (old.workspace_id, old.created_at, old.status, old.channel,
		old.assignee_id, old.group_id, old.ad_click, old.utm_source, old.utm_medium, old.utm_campaign,
		old.first_response_at, old.status_changed_at, -1);
	INSERT INTO report_conversation_changes VALUES (new.workspace_id, new.created_at, new.status, new.channel,
		new.assignee_id, new.group_id, new.ad_click, new.utm_source, new.utm_medium, new.utm_campaign,
		new.first_response_at, new.status_changed_at, 1);
END;--> statement-breakpoint
-- Messaging-app handoffs, the same way: per workspace and local day, `figures` maps a dimension set (here
-- `["handoff", channel, ad click, utm_source, utm_medium, utm_campaign]`, from the click's origin) to
-- `[handoffs, of them arrived]`.
CREATE TABLE `report_handoff_days` (
	`workspace_id` text NOT NULL,
	`day` text NOT NULL,
	`figures` text NOT NULL,
	PRIMARY KEY (`workspace_id`, `day`)
) WITHOUT ROWID;--> statement-breakpoint
CREATE VIEW `report_handoff_changes` AS SELECT NULL AS workspace_id, NULL AS created_at, NULL AS channel,
	NULL AS origin, NULL AS arrived, NULL AS sign WHERE 0;--> statement-breakpoint
CREATE VIEW `report_handoff_day_changes` AS SELECT NULL AS workspace_id, NULL AS day, NULL AS dimension_set,
	NULL AS arrived, NULL AS sign WHERE 0;--> statement-breakpoint
CREATE TRIGGER `report_handoff_changes_place` INSTEAD OF INSERT ON `report_handoff_changes` BEGIN
	INSERT INTO report_dimension_sets (workspace_id, dimensions) VALUES (new.workspace_id, json_array('handoff', new.channel,
			CASE WHEN nullif(json_extract(new.origin, '$.gclid'), '') IS NOT NULL THEN 'search'
				WHEN nullif(json_extract(new.origin, '$.fbclid'), '') IS NOT NULL THEN 'social' ELSE 'none' END,
			nullif(json_extract(new.origin, '$.utmSource'), ''), nullif(json_extract(new.origin, '$.utmMedium'), ''),
			nullif(json_extract(new.origin, '$.utmCampaign'), '')))
		ON CONFLICT DO NOTHING;
	INSERT INTO report_handoff_day_changes SELECT new.workspace_id, date((new.created_at + coalesce((SELECT o.offset_ms FROM report_rollup_zones z
				JOIN report_zone_offsets o ON o.time_zone = z.time_zone
				WHERE z.workspace_id = new.workspace_id AND o.starts_at <= new.created_at
				ORDER BY o.starts_at DESC LIMIT 1), 0)) / 1000, 'unixepoch'),
		(SELECT id FROM report_dimension_sets WHERE workspace_id = new.workspace_id AND dimensions = json_array('handoff', new.channel,
			CASE WHEN nullif(json_extract(new.origin, '$.gclid'), '') IS NOT NULL THEN 'search'
				WHEN nullif(json_extract(new.origin, '$.fbclid'), '') IS NOT NULL THEN 'social' ELSE 'none' END,
			nullif(json_extract(new.origin, '$.utmSource'), ''), nullif(json_extract(new.origin, '$.utmMedium'), ''),
			nullif(json_extract(new.origin, '$.utmCampaign'), ''))),
		new.arrived, new.sign;
END;--> statement-breakpoint
CREATE TRIGGER `report_handoff_day_changes_add` INSTEAD OF INSERT ON `report_handoff_day_changes` BEGIN
	INSERT INTO report_handoff_days (workspace_id, day, figures) VALUES (new.workspace_id, new.day, '{}')
		ON CONFLICT DO NOTHING;
	UPDATE report_handoff_days SET figures = json_set(figures, '$."' || new.dimension_set || '"', json_array(
			coalesce(json_extract(figures, '$."' || new.dimension_set || '"[0]'), 0) + new.sign,
			coalesce(json_extract(figures, '$."' || new.dimension_set || '"[1]'), 0) + new.sign * new.arrived))
		WHERE workspace_id = new.workspace_id AND day = new.day;
	UPDATE report_handoff_days SET figures = json_remove(figures, '$."' || new.dimension_set || '"')
		WHERE workspace_id = new.workspace_id AND day = new.day
			AND new.sign < 0 AND json_extract(figures, '$."' || new.dimension_set || '"[0]') = 0;
	DELETE FROM report_handoff_days WHERE workspace_id = new.workspace_id AND day = new.day
		AND new.sign < 0 AND figures = '{}';
END;--> statement-breakpoint
CREATE TRIGGER `report_handoffs_insert` AFTER INSERT ON `messaging_handoffs` BEGIN
	INSERT INTO report_handoff_changes VALUES (new.workspace_id, new.created_at, new.channel, new.origin,
		new.conversation_id IS NOT NULL, 1);
END;--> statement-breakpoint
CREATE TRIGGER `report_handoffs_delete` AFTER DELETE ON `messaging_handoffs` BEGIN
	INSERT INTO report_handoff_changes VALUES (old.workspace_id, old.created_at, old.channel, old.origin,
		old.conversation_id IS NOT NULL, -1);
END;--> statement-breakpoint
CREATE TRIGGER `report_handoffs_update` AFTER UPDATE OF workspace_id, created_at, channel, origin, conversation_id
	ON `messaging_handoffs`
	WHEN old.workspace_id IS NOT new.workspace_id OR old.created_at IS NOT new.created_at
		OR old.channel IS NOT new.channel OR old.origin IS NOT new.origin
		OR (old.conversation_id IS NULL) IS NOT (new.conversation_id IS NULL)
BEGIN
	INSERT INTO report_handoff_changes VALUES (old.workspace_id, old.created_at, old.channel, old.origin,
		old.conversation_id IS NOT NULL, -1);
	INSERT INTO report_handoff_changes VALUES (new.workspace_id, new.created_at, new.channel, new.origin,
		new.conversation_id IS NOT NULL, 1);
END;--> statement-breakpoint
-- The conversations and handoffs already written, by day in UTC; the first report of a workspace in another zone
-- rebuilds its rollups in that zone (src/domain/reports/rollups.ts).
INSERT INTO report_conversation_changes SELECT workspace_id, created_at, status, channel, assignee_id, group_id,
	ad_click, utm_source, utm_medium, utm_campaign, first_response_at, status_changed_at, 1 FROM conversations;--> statement-breakpoint
INSERT INTO report_handoff_changes SELECT workspace_id, created_at, channel, origin, conversation_id IS NOT NULL, 1
	FROM messaging_handoffs;
