-- Groups were free names before: on operators (a JSON list) and as conversations' group_id. Each becomes a
-- row of `groups`, and each operator's names links it through `operator_groups`, before the JSON goes.
-- A conversation's group_id keeps its value: the group made for it has that value as id and as name.
INSERT OR IGNORE INTO `groups` (`id`, `workspace_id`, `name`, `created_at`)
SELECT `group_id`, `workspace_id`, `group_id`, CAST(unixepoch('subsec') * 1000 AS INTEGER)
FROM `conversations` WHERE `group_id` IS NOT NULL GROUP BY `workspace_id`, `group_id`;
--> statement-breakpoint
INSERT OR IGNORE INTO `groups` (`id`, `workspace_id`, `name`, `created_at`)
SELECT 'grp_' || upper(substr(hex(randomblob(13)), 1, 26)), o.`workspace_id`, trim(j.`value`),
	CAST(unixepoch('subsec') * 1000 AS INTEGER)
FROM `operators` o, json_each(o.`groups`) j
WHERE trim(j.`value`) != ''
GROUP BY o.`workspace_id`, trim(j.`value`);
--> statement-breakpoint
INSERT OR IGNORE INTO `operator_groups` (`workspace_id`, `operator_id`, `group_id`)
SELECT o.`workspace_id`, o.`id`, g.`id`
FROM `operators` o, json_each(o.`groups`) j
JOIN `groups` g ON g.`workspace_id` = o.`workspace_id` AND g.`name` = trim(j.`value`);
--> statement-breakpoint
-- A group_id whose value another workspace's group took as its id (a clash of two free texts) cannot stay
-- a reference: it is cleared.
UPDATE `conversations` SET `group_id` = NULL WHERE `group_id` IS NOT NULL AND NOT EXISTS
	(SELECT 1 FROM `groups` g WHERE g.`id` = `conversations`.`group_id` AND g.`workspace_id` = `conversations`.`workspace_id`);
--> statement-breakpoint
ALTER TABLE `operators` DROP COLUMN `groups`;
