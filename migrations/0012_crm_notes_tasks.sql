CREATE TABLE `notes` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`subject_kind` text NOT NULL,
	`subject_id` text NOT NULL,
	`author_kind` text NOT NULL,
	`author_id` text,
	`text` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `notes_subject` ON `notes` (`workspace_id`,`subject_kind`,`subject_id`,`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `tasks` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`title` text NOT NULL,
	`description` text,
	`due_at` integer,
	`assignee_id` text NOT NULL,
	`contact_id` text,
	`conversation_id` text,
	`deal_id` text,
	`done_at` integer,
	`created_by` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `tasks_assignee` ON `tasks` (`workspace_id`,`assignee_id`,`done_at`,`due_at`);--> statement-breakpoint
ALTER TABLE `deals` ADD `products` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `deals` ADD `closed_at` integer;--> statement-breakpoint
UPDATE `deals` SET `closed_at` = `updated_at` WHERE `status` != 'open';--> statement-breakpoint
CREATE INDEX `deals_workspace_created` ON `deals` (`workspace_id`,`created_at`,`id`);--> statement-breakpoint
-- Names become unique (a bot names a funnel and a stage by name): a duplicate made before keeps its place
-- under its name with its id appended.
UPDATE `funnels` SET `name` = `name` || ' (' || `id` || ')' WHERE EXISTS (SELECT 1 FROM `funnels` f
	WHERE f.`workspace_id` = `funnels`.`workspace_id` AND f.`name` = `funnels`.`name` AND f.`id` < `funnels`.`id`);--> statement-breakpoint
UPDATE `stages` SET `name` = `name` || ' (' || `id` || ')' WHERE EXISTS (SELECT 1 FROM `stages` s
	WHERE s.`funnel_id` = `stages`.`funnel_id` AND s.`name` = `stages`.`name` AND s.`id` < `stages`.`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `funnels_workspace_name` ON `funnels` (`workspace_id`,`name`);--> statement-breakpoint
CREATE UNIQUE INDEX `stages_funnel_name` ON `stages` (`funnel_id`,`name`);