-- Groups were free names before: on operators (a JSON list) and as conversations' group_id. Each name of a
-- workspace becomes a row of `groups` with a fresh id; conversations point at their name's group, and each
-- operator's names link it through `operator_groups`, before the JSON goes.
INSERT OR IGNORE INTO `groups` (`id`, `workspace_id`, `name`, `created_at`)
SELECT 'grp_' || upper(substr(hex(randomblob(13)), 1, 26)), `workspace_id`, `name`,
	CAST(unixepoch('subsec') * 1000 AS INTEGER)
FROM (
	SELECT `workspace_id`, `group_id` AS `name` FROM `conversations` WHERE `group_id` IS NOT NULL AND trim(`group_id`) != ''
	UNION
	SELECT o.`workspace_id`, trim(j.`value`) FROM `operators` o, json_each(o.`groups`) j WHERE trim(j.`value`) != ''
);
--> statement-breakpoint
UPDATE `conversations` SET `group_id` = (SELECT g.`id` FROM `groups` g
	WHERE g.`workspace_id` = `conversations`.`workspace_id` AND g.`name` = `conversations`.`group_id`)
WHERE `group_id` IS NOT NULL;
--> statement-breakpoint
INSERT OR IGNORE INTO `operator_groups` (`workspace_id`, `operator_id`, `group_id`)
SELECT o.`workspace_id`, o.`id`, g.`id`
FROM `operators` o, json_each(o.`groups`) j
JOIN `groups` g ON g.`workspace_id` = o.`workspace_id` AND g.`name` = trim(j.`value`);
--> statement-breakpoint
ALTER TABLE `operators` DROP COLUMN `groups`;
