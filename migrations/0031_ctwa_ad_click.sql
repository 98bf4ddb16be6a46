-- A Click-to-WhatsApp ad's click id counts as a social (Meta) ad click: the generated column is redefined, and
-- the reports' index over it dropped first (SQLite refuses to drop an indexed column) and built again after.
DROP INDEX `conversations_report`;--> statement-breakpoint
ALTER TABLE `conversations` DROP COLUMN `ad_click`;--> statement-breakpoint
ALTER TABLE `conversations` ADD `ad_click` text GENERATED ALWAYS AS (CASE WHEN gclid IS NOT NULL AND gclid != '' THEN 'search' WHEN (fbclid IS NOT NULL AND fbclid != '') OR (ctwa_clid IS NOT NULL AND ctwa_clid != '') THEN 'social' ELSE 'none' END) VIRTUAL;--> statement-breakpoint
CREATE INDEX `conversations_report` ON `conversations` (`workspace_id`,`created_at`,`status`,`channel`,`assignee_id`,`group_id`,`ad_click`,`utm_source`,`utm_medium`,`utm_campaign`,`first_response_at`,`status_changed_at`);
