CREATE TABLE `custom_fields` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`entity` text NOT NULL,
	`key` text NOT NULL,
	`label` text NOT NULL,
	`type` text NOT NULL,
	`options` text,
	`required` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `custom_fields_workspace_entity_key` ON `custom_fields` (`workspace_id`,`entity`,`key`);--> statement-breakpoint
-- The fields the widgets' pre-chat forms ask for become contact definitions first (a select keeps its
-- options), then the keys contacts and deals already hold (from identify's customData and pre-chat answers,
-- written before definitions existed): numbers when every value is one, booleans likewise, else text. So
-- sites that send them keep working. Ids follow the app's `cf_` + 26 characters shape (random, not
-- time-ordered).
INSERT OR IGNORE INTO `custom_fields` (`id`, `workspace_id`, `entity`, `key`, `label`, `type`, `options`, `required`, `created_at`, `updated_at`)
SELECT 'cf_' || upper(substr(hex(randomblob(13)), 1, 26)), w.`workspace_id`, 'contact', json_extract(f.`value`, '$.name'),
	json_extract(f.`value`, '$.label'),
	CASE WHEN json_extract(f.`value`, '$.type') = 'select' THEN 'select' ELSE 'text' END,
	CASE WHEN json_extract(f.`value`, '$.type') = 'select' THEN json_extract(f.`value`, '$.options') END,
	0, CAST(unixepoch('subsec') * 1000 AS INTEGER), CAST(unixepoch('subsec') * 1000 AS INTEGER)
FROM `widget_settings` w, json_each(w.`settings`, '$.customFields') f;
--> statement-breakpoint
INSERT OR IGNORE INTO `custom_fields` (`id`, `workspace_id`, `entity`, `key`, `label`, `type`, `options`, `required`, `created_at`, `updated_at`)
SELECT 'cf_' || upper(substr(hex(randomblob(13)), 1, 26)), r.`workspace_id`, r.`entity`, j.`key`, j.`key`,
	CASE
		WHEN min(j.`type` IN ('integer', 'real')) = 1 THEN 'number'
		WHEN min(j.`type` IN ('true', 'false')) = 1 THEN 'boolean'
		ELSE 'text'
	END,
	NULL, 0, CAST(unixepoch('subsec') * 1000 AS INTEGER), CAST(unixepoch('subsec') * 1000 AS INTEGER)
FROM (
	SELECT `workspace_id`, 'contact' AS `entity`, `custom_fields` FROM `contacts`
	UNION ALL
	SELECT `workspace_id`, 'deal', `custom_fields` FROM `deals`
) r, json_each(r.`custom_fields`) j
WHERE j.`type` != 'null' AND j.`key` GLOB '[A-Za-z]*'
GROUP BY r.`workspace_id`, r.`entity`, j.`key`;
