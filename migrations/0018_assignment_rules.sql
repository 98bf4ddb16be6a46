CREATE TABLE `assignment_rules` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`name` text NOT NULL,
	`enabled` integer NOT NULL,
	`priority` integer NOT NULL,
	`condition` text,
	`policy` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `assignment_rules_workspace` ON `assignment_rules` (`workspace_id`,`priority`,`created_at`);